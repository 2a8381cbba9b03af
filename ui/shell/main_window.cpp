#include "ui/shell/main_window.h"

#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "ui/common/field_error.h"
#include "ui/common/plural.h"
#include "ui/compare/compare_page.h"
#include "ui/run/run_page.h"
#include "ui/shell/input_blocker.h"
#include "ui/shell/pending_answer.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/targets_page.h"

#include <QCloseEvent>
#include <QCoroSignal>
#include <QDialog>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>
#include <utility>

// Resources of a static library are registered by hand, outside any namespace.
static void initShellResources() {
    Q_INIT_RESOURCE(shell_resources);
}

namespace loadscope::ui {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kPageKey = QStringLiteral("window/page");

// The first local .loadscope file of a drag, or an empty string.
QString droppedSession(const QMimeData* mime) {
    if (!mime || !mime->hasUrls())
        return {};
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile() &&
            QFileInfo(url.toLocalFile())
                    .suffix()
                    .compare(QLatin1String("loadscope"), Qt::CaseInsensitive) == 0)
            return url.toLocalFile();
    }
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent) {
    initShellResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/loadscope.svg")));
    setAcceptDrops(true);

    m_document = new app::SessionDocument(this);
    m_runner = new app::SweepRunner(m_document, this);
    m_runner->setIdleCheckSeconds(2); // says in the Run log how busy the machine already is
    m_recentFiles = new RecentFiles(this);
    m_prompts = dialogPrompts(this);

    createPages();
    createMenus();

    m_sessionSummary = new QLabel;
    statusBar()->addPermanentWidget(m_sessionSummary);

    connect(m_document, &app::SessionDocument::sessionChanged, this, &MainWindow::updateTitle);
    connect(m_document, &app::SessionDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &app::SessionDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &app::SessionDocument::sessionChanged, this, &MainWindow::updateStatus);
    connect(m_document, &app::SessionDocument::resultsChanged, this, &MainWindow::updateStatus);
    connect(m_document, &app::SessionDocument::resultsChanged, this, &MainWindow::updateActions);
    connect(m_document, &app::SessionDocument::filePathChanged, this, &MainWindow::updateActions);
    connect(m_runner, &app::SweepRunner::runningChanged, this, &MainWindow::updateActions);
    connect(m_runner, &app::SweepRunner::autosaveFailed, this,
            [this](const QString& error) { showError(tr("Autosave Failed"), error); });

    updateTitle();
    updateStatus();
    updateActions();
    readSettings();
}

MainWindow::~MainWindow() {
    // The dialogs that are up go first, while the window is whole: whatever
    // flow waits for one of them is told Cancel, and checks the window is
    // still there, only from the event loop later.
    qDeleteAll(findChildren<QDialog*>(Qt::FindDirectChildrenOnly));
    // The document goes with the window's children, its undo stack with it, announcing on the
    // way that nothing is left to undo: not to a window half destroyed.
    disconnect(SessionEdits::of(m_document)->stack(), nullptr, this, nullptr);
    // The reverse of construction: pages hold the runner and the document,
    // and the runner (stopping a sweep in progress) holds the document.
    delete m_pages;
    delete m_runner;
}

void MainWindow::setPrompts(Prompts prompts) {
    const Prompts defaults = dialogPrompts(this);
    m_prompts = std::move(prompts);
    if (!m_prompts.unsavedChanges)
        m_prompts.unsavedChanges = defaults.unsavedChanges;
    if (!m_prompts.saveFileName)
        m_prompts.saveFileName = defaults.saveFileName;
    if (!m_prompts.openFileName)
        m_prompts.openFileName = defaults.openFileName;
    if (!m_prompts.directory)
        m_prompts.directory = defaults.directory;
    if (!m_prompts.error)
        m_prompts.error = defaults.error;
}

void MainWindow::createPages() {
    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_pagesBlocker = new InputBlocker(m_pages);
    m_targetsPage = new TargetsPage(m_document);
    m_sweepPage = new SweepPage(m_document);
    m_runPage = new RunPage(m_document, m_runner);
    m_runPage->setLaunchCheck([this](const QString& what) { return !refuseFieldInError(what); });
    m_comparePage = new ComparePage(m_document);
    m_pages->addTab(m_targetsPage, tr("Targets"));
    m_pages->addTab(m_sweepPage, tr("Sweep"));
    m_pages->addTab(m_runPage, tr("Run"));
    m_pages->addTab(m_comparePage, tr("Compare"));
    setCentralWidget(m_pages);
}

void MainWindow::updateTitle() {
    setWindowTitle(tr("%1[*] — Loadscope").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::updateStatus() {
    const app::Session& session = m_document->session();
    m_sessionSummary->setText(
        plural(qsizetype(session.targets.size()), tr("1 target"), tr("%1 targets")) +
        QStringLiteral(" · ") +
        plural(qsizetype(session.results.size()), tr("1 result"), tr("%1 results")));
}

void MainWindow::readSettings() {
    const QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(1280, 820);
    restoreState(settings.value(kStateKey).toByteArray());
    m_pages->setCurrentIndex(settings.value(kPageKey, 0).toInt());
}

void MainWindow::writeSettings() const {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kPageKey, m_pages->currentIndex());
}

void MainWindow::showError(const QString& title, const QString& message) {
    m_prompts.error(title, message);
}

bool MainWindow::refuseFieldInError(const QString& what) {
    // A field shown in error never lets an older value go anywhere: the document still holds
    // the last usable value, which the user has typed over.
    QString where;
    QString message;
    if (const auto target = m_targetsPage->firstFieldInError()) {
        m_pages->setCurrentWidget(m_targetsPage);
        m_targetsPage->showFieldInError(*target);
        where = tr("%1 of target “%2”").arg(target->field.name, target->targetName);
        message = target->field.message;
    } else if (const auto plan = m_sweepPage->fieldInError()) {
        m_pages->setCurrentWidget(m_sweepPage);
        focusField(plan->field);
        where = tr("%1 on the Sweep page").arg(plan->name);
        message = plan->message;
    } else {
        return false;
    }
    statusBar()->showMessage(tr("%1: %2 is in error").arg(what, where), 5000);
    showError(tr("%1 Refused").arg(what),
              tr("%1 is in error: %2\nCorrect it, or undo the edit, first.").arg(where, message));
    return true;
}

bool MainWindow::refuseWhileRunning(const QString& what) {
    if (!m_runner->isRunning())
        return false;
    // The sweep stores its points in this document: replacing it under the
    // sweep would mix two sessions.
    showError(what, tr("A sweep is running. Stop it on the Run page first."));
    return true;
}

QCoro::Task<bool> MainWindow::confirmDiscardOrSave() {
    if (!m_document->isModified())
        co_return true;
    if (m_askingAboutUnsaved)
        co_return false; // the question is up already, for another action
    m_askingAboutUnsaved = true;
    PendingAnswer<UnsavedChoice> choice(UnsavedChoice::Cancel);
    m_prompts.unsavedChanges(m_document->displayName(), choice.answer());
    QPointer<MainWindow> self(this);
    const UnsavedChoice answered = co_await choice;
    if (!self)
        co_return false;
    m_askingAboutUnsaved = false;
    switch (answered) {
    case UnsavedChoice::Save:
        // Saved meanwhile (a sweep saves each point into the session's
        // file): nothing is left to save.
        if (!m_document->isModified())
            co_return true;
        co_return co_await saveSession();
    case UnsavedChoice::Discard:
        co_return true;
    case UnsavedChoice::Cancel:
        break;
    }
    co_return false;
}

QCoro::Task<bool> MainWindow::mayReplaceSession(QString what) {
    if (m_opening || refuseWhileRunning(what))
        co_return false;
    QPointer<MainWindow> self(this);
    const bool mayReplace = co_await confirmDiscardOrSave();
    // The event loop ran while the user was asked: look again.
    co_return self&& mayReplace && !m_opening && !refuseWhileRunning(what);
}

QCoro::Task<bool> MainWindow::newSession() {
    if (!co_await mayReplaceSession(tr("New Session")))
        co_return false;
    app::Session session;
    session.targets.push_back(
        app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0));
    session.baselineTargetId = session.targets.front().id;
    m_document->reset(std::move(session));
    m_pages->setCurrentWidget(m_targetsPage);
    statusBar()->showMessage(tr("New session"), 3000);
    co_return true;
}

QCoro::Task<bool> MainWindow::saveSession() {
    if (refuseFieldInError(tr("Save")))
        co_return false;
    if (m_document->filePath().isEmpty())
        co_return co_await chooseAndSaveAs();
    co_return co_await writeSession(m_document->filePath());
}

QCoro::Task<bool> MainWindow::saveSessionAs(QString path) {
    if (refuseFieldInError(tr("Save")))
        co_return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".loadscope");
    co_return co_await writeSession(path);
}

QCoro::Task<bool> MainWindow::writeSession(QString path) {
    statusBar()->showMessage(tr("Saving %1").arg(path));
    QPointer<MainWindow> self(this);
    const app::Result<void> saved = co_await m_document->saveInBackground(path);
    if (!self)
        co_return bool(saved);
    if (!saved) {
        statusBar()->clearMessage();
        showError(tr("Cannot Save Session"), saved.error().toString());
        co_return false;
    }
    const QString written = QFileInfo(path).absoluteFilePath();
    m_recentFiles->add(written);
    rememberDirectory(written);
    statusBar()->showMessage(tr("Saved %1").arg(written), 3000);
    co_return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_document->isSaving()) {
        // The session is being written: closed once it is, then asked about
        // whatever changed meanwhile.
        event->ignore();
        closeOnceSaved();
        return;
    }
    const bool confirmed = std::exchange(m_closeConfirmed, false);
    if (m_askingAboutUnsaved || (m_document->isModified() && !confirmed)) {
        // Stays open while the user is asked; closed again once answered.
        event->ignore();
        if (!m_askingAboutUnsaved)
            closeOnceConfirmed();
        return;
    }
    writeSettings();
    // A sweep in progress stops here; its completed points are already stored.
    m_runner->cancel();
    event->accept();
}

QCoro::Task<> MainWindow::closeOnceSaved() {
    if (m_closeAfterSave)
        co_return; // already waiting
    m_closeAfterSave = true;
    QPointer<MainWindow> self(this);
    while (self && m_document->isSaving())
        co_await qCoro(m_document, &app::SessionDocument::backgroundSaveEnded);
    if (!self)
        co_return;
    m_closeAfterSave = false;
    close();
}

QCoro::Task<> MainWindow::closeOnceConfirmed() {
    QPointer<MainWindow> self(this);
    const bool mayClose = co_await confirmDiscardOrSave();
    if (!self || !mayClose)
        co_return; // Cancel, or the save failed (its error is shown): stay open
    m_closeConfirmed = true;
    // Not from inside closeEvent(), where a second close() is ignored: the
    // answer may have come at once.
    QTimer::singleShot(0, this, &MainWindow::close);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedSession(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedSession(event->mimeData());
    if (path.isEmpty() || m_opening)
        return;
    event->acceptProposedAction();
    // Opening may ask about unsaved changes: not while the drag source waits
    // for the drop to end.
    QTimer::singleShot(0, this, [this, path] { openSession(path); });
}

} // namespace loadscope::ui
