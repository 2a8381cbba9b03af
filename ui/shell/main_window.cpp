#include "ui/shell/main_window.h"

#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "ui/common/plural.h"
#include "ui/compare/compare_page.h"
#include "ui/run/run_page.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/targets_page.h"

#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

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
    m_prompts = defaultPrompts(this);

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
    // The reverse of construction: pages hold the runner and the document,
    // and the runner (stopping a sweep in progress) holds the document.
    delete m_pages;
    delete m_runner;
}

void MainWindow::setPrompts(Prompts prompts) {
    const Prompts defaults = defaultPrompts(this);
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

MainWindow::Prompts MainWindow::defaultPrompts(QWidget* parent) {
    Prompts prompts;
    // Questions the user must answer before the action can go on; they wait
    // for the user only, never for I/O.
    prompts.unsavedChanges = [parent](const QString& sessionName) {
        QMessageBox box(QMessageBox::Warning, tr("Unsaved Changes"),
                        tr("The session “%1” has changes that are not saved.").arg(sessionName),
                        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
        box.setInformativeText(tr("Save them before going on?"));
        box.setDefaultButton(QMessageBox::Save);
        switch (box.exec()) {
        case QMessageBox::Save:
            return UnsavedChoice::Save;
        case QMessageBox::Discard:
            return UnsavedChoice::Discard;
        default:
            return UnsavedChoice::Cancel;
        }
    };
    prompts.saveFileName = [parent](const QString& title, const QString& suggested,
                                    const QString& filter) {
        return QFileDialog::getSaveFileName(parent, title, suggested, filter);
    };
    prompts.openFileName = [parent](const QString& title, const QString& directory,
                                    const QString& filter) {
        return QFileDialog::getOpenFileName(parent, title, directory, filter);
    };
    prompts.directory = [parent](const QString& title, const QString& directory) {
        return QFileDialog::getExistingDirectory(parent, title, directory);
    };
    prompts.error = [parent](const QString& title, const QString& message) {
        // open(), not exec(): an error shown from a slot or a coroutine must not
        // run a nested event loop under it.
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, parent);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    };
    return prompts;
}

void MainWindow::createPages() {
    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_targetsPage = new TargetsPage(m_document);
    m_sweepPage = new SweepPage(m_document);
    m_runPage = new RunPage(m_document, m_runner);
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

bool MainWindow::refuseWhileRunning(const QString& what) {
    if (!m_runner->isRunning())
        return false;
    // The sweep stores its points in this document: replacing it under the
    // sweep would mix two sessions.
    showError(what, tr("A sweep is running. Stop it on the Run page first."));
    return true;
}

bool MainWindow::confirmDiscardOrSave() {
    if (!m_document->isModified())
        return true;
    switch (m_prompts.unsavedChanges(m_document->displayName())) {
    case UnsavedChoice::Save:
        return saveSession();
    case UnsavedChoice::Discard:
        return true;
    case UnsavedChoice::Cancel:
        break;
    }
    return false;
}

bool MainWindow::newSession() {
    if (refuseWhileRunning(tr("New Session")) || !confirmDiscardOrSave())
        return false;
    app::Session session;
    session.targets.push_back(
        app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0));
    session.baselineTargetId = session.targets.front().id;
    m_document->reset(std::move(session));
    m_pages->setCurrentWidget(m_targetsPage);
    statusBar()->showMessage(tr("New session"), 3000);
    return true;
}

bool MainWindow::saveSession() {
    if (m_document->filePath().isEmpty())
        return chooseAndSaveAs();
    if (const auto saved = m_document->save(); !saved) {
        showError(tr("Cannot Save Session"), saved.error().toString());
        return false;
    }
    m_recentFiles->add(m_document->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(m_document->filePath()), 3000);
    return true;
}

bool MainWindow::saveSessionAs(const QString& path) {
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += QStringLiteral(".loadscope");
    if (const auto saved = m_document->saveAs(target); !saved) {
        showError(tr("Cannot Save Session"), saved.error().toString());
        return false;
    }
    m_recentFiles->add(m_document->filePath());
    rememberDirectory(m_document->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(m_document->filePath()), 3000);
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscardOrSave()) {
        event->ignore();
        return;
    }
    writeSettings();
    // A sweep in progress stops here; its completed points are already stored.
    m_runner->cancel();
    event->accept();
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
