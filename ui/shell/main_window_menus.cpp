// MainWindow's actions and menus.
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/sweep_runner.h"
#include "ui/common/plural.h"
#include "ui/compare/compare_page.h"
#include "ui/run/run_page.h"
#include "ui/shell/input_blocker.h"
#include "ui/shell/main_window.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/targets_page.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>

namespace loadscope::ui {

namespace {

// An example's title: the name its session gives itself (a few kilobytes, compiled in).
QString exampleTitle(const QString& name) {
    const app::Result<app::Session> example = app::loadExampleSession(name);
    if (example && !example->name.trimmed().isEmpty())
        return example->name.trimmed();
    return name;
}

} // namespace

void MainWindow::createMenus() {
    createFileMenu();
    createEditMenu();
    createViewMenu();
    createRunMenu();
    createHelpMenu();
    createToolBar();
}

void MainWindow::createRunMenu() {
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->setObjectName(QStringLiteral("runMenu"));
    for (QAction* action :
         {m_runPage->startAction(), m_runPage->stopAction(), m_runPage->resumeAction()})
        run->addAction(action);
    // From the menu or a key the sweep starts where the user then sees it go.
    connect(m_runPage, &RunPage::launchAccepted, this,
            [this] { m_pages->setCurrentWidget(m_runPage); });
    run->setToolTipsVisible(true);
}

void MainWindow::createToolBar() {
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setIconSize(QSize(16, 16));
    const auto fallback = [this](QAction* action, QStyle::StandardPixmap pixmap) {
        // Without an icon theme (a bare desktop) the style's own icons stand in.
        if (action->icon().isNull())
            action->setIcon(style()->standardIcon(pixmap));
        return action;
    };
    bar->addAction(fallback(m_newAction, QStyle::SP_FileIcon));
    bar->addAction(fallback(m_openAction, QStyle::SP_DialogOpenButton));
    bar->addAction(fallback(m_saveAction, QStyle::SP_DialogSaveButton));
    bar->addSeparator();
    bar->addAction(fallback(m_undoAction, QStyle::SP_ArrowBack));
    bar->addAction(fallback(m_redoAction, QStyle::SP_ArrowForward));
    bar->addSeparator();
    bar->addAction(fallback(m_runPage->startAction(), QStyle::SP_MediaPlay));
    bar->addAction(fallback(m_runPage->stopAction(), QStyle::SP_MediaStop));
    bar->addAction(fallback(m_runPage->resumeAction(), QStyle::SP_MediaSeekForward));
}

QMenu* MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));

    QAction* newAction = file->addAction(QIcon::fromTheme(QStringLiteral("document-new")),
                                         tr("&New Session"), this, [this] { newSession(); });
    newAction->setShortcut(QKeySequence::New);
    newAction->setObjectName(QStringLiteral("newSessionAction"));
    m_newAction = newAction;
    QAction* open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"),
                                    this, [this] { chooseAndOpen(); });
    open->setShortcut(QKeySequence::Open);
    m_openAction = open;

    QMenu* examples = file->addMenu(tr("Open E&xample"));
    examples->setObjectName(QStringLiteral("examplesMenu"));
    for (const QString& name : app::exampleSessionNames()) {
        // Every entry by its title; the name `loadscope` and `loadscope-cli` take, in the tip.
        QAction* example =
            examples->addAction(exampleTitle(name).replace(QLatin1Char('&'), QStringLiteral("&&")),
                                this, [this, name] { openSession(name); });
        example->setToolTip(tr("%1 (loadscope %1)").arg(name));
        example->setStatusTip(tr("Opens the example session %1").arg(name));
        example->setObjectName(QStringLiteral("example-") + name);
    }
    examples->setToolTipsVisible(true);

    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    connect(m_recentFiles, &RecentFiles::filesChanged, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();

    file->addSeparator();
    m_saveAction = file->addAction(QIcon::fromTheme(QStringLiteral("document-save")), tr("&Save"),
                                   this, [this] { saveSession(); });
    m_saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAs = file->addAction(QIcon::fromTheme(QStringLiteral("document-save-as")),
                                      tr("Save &As…"), this, [this] { chooseAndSaveAs(); });
    saveAs->setShortcut(QKeySequence::SaveAs);

    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    m_exportResultsAction = exportMenu->addAction(tr("&Results CSV…"), this, [this] {
        chooseAndExport(tr("Export Results CSV"), QStringLiteral("-results.csv"),
                        tr("CSV files (*.csv)"),
                        [this](const QString& path) { exportResultsCsv(path); });
    });
    m_exportResultsAction->setToolTip(tr("One row per measured or imported point"));
    m_exportSummaryAction = exportMenu->addAction(tr("&Summary CSV…"), this, [this] {
        chooseAndExport(tr("Export Summary CSV"), QStringLiteral("-summary.csv"),
                        tr("CSV files (*.csv)"),
                        [this](const QString& path) { exportSummaryCsv(path); });
    });
    m_exportSummaryAction->setToolTip(
        tr("Mean, spread, confidence interval and change against the baseline per target, "
           "level and metric"));
    m_exportPercentilesAction = exportMenu->addAction(tr("&Percentile Distributions…"), this,
                                                      [this] { chooseAndExportPercentiles(); });
    m_exportPercentilesAction->setToolTip(
        tr("One HdrHistogram .hgrm file per target and level, for hdr-plot and friends"));
    m_exportReportAction = exportMenu->addAction(tr("Report &PDF…"), this, [this] {
        chooseAndExport(tr("Export Report PDF"), QStringLiteral("-report.pdf"),
                        tr("PDF files (*.pdf)"),
                        [this](const QString& path) { exportReportPdf(path); });
    });
    m_exportReportAction->setToolTip(tr("Every Compare chart and the comparison table"));
    exportMenu->setToolTipsVisible(true);

    QAction* import = file->addAction(tr("&Import…"), this, &MainWindow::showImportDialog);
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    import->setToolTip(tr("Add saved outputs of ab, wrk, h2load, memtier_benchmark or netperf "
                          "to a target"));
    file->setToolTipsVisible(true);
    m_sessionActions = {
        newAction, open,  examples->menuAction(), m_recentMenu->menuAction(), m_saveAction,
        saveAs,    import};

    file->addSeparator();
    QAction* quit = file->addAction(QIcon::fromTheme(QStringLiteral("application-exit")),
                                    tr("&Quit"), this, &MainWindow::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    return file;
}

void MainWindow::createEditMenu() {
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // Undo and Redo of the session's edits (SessionEdits); a field being typed in takes the
    // keys for its own text first, as every text field does.
    QUndoStack* history = SessionEdits::of(m_document)->stack();
    m_undoAction = edit->addAction(QIcon::fromTheme(QStringLiteral("edit-undo")), tr("&Undo"), this,
                                   [this, history] {
                                       if (m_undoAction->isEnabled())
                                           history->undo();
                                   });
    m_undoAction->setObjectName(QStringLiteral("undoAction"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction = edit->addAction(QIcon::fromTheme(QStringLiteral("edit-redo")), tr("&Redo"), this,
                                   [this, history] {
                                       if (m_redoAction->isEnabled())
                                           history->redo();
                                   });
    m_redoAction->setObjectName(QStringLiteral("redoAction"));
    m_redoAction->setShortcut(QKeySequence::Redo);
    for (auto changed : {&QUndoStack::canUndoChanged, &QUndoStack::canRedoChanged})
        connect(history, changed, this, &MainWindow::updateActions);
    for (auto changed : {&QUndoStack::undoTextChanged, &QUndoStack::redoTextChanged})
        connect(history, changed, this, &MainWindow::updateActions);
    edit->addSeparator();
    QMenu* targets = edit->addMenu(tr("&Targets"));
    for (QAction* action : m_targetsPage->targetActions()) {
        targets->addAction(action);
        // From the menu the action works on the Targets page: show it.
        connect(action, &QAction::triggered, this,
                [this] { m_pages->setCurrentWidget(m_targetsPage); });
    }
    edit->addSeparator();
    m_clearResultsAction = edit->addAction(tr("&Clear Results…"), this, [this] {
        // Measured results cannot be had back without running again: ask,
        // without holding up the event loop.
        auto* box = new QMessageBox(QMessageBox::Question, tr("Clear Results"),
                                    plural(qsizetype(m_document->session().results.size()),
                                           tr("Remove the result of this session?"),
                                           tr("Remove all %1 results of this session?")),
                                    QMessageBox::Cancel, this);
        box->addButton(tr("Clear"), QMessageBox::DestructiveRole);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QMessageBox::buttonClicked, this, [this, box](QAbstractButton* button) {
            if (box->buttonRole(button) == QMessageBox::DestructiveRole)
                m_document->clearResults();
        });
        box->open();
    });
}

void MainWindow::createViewMenu() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    const std::pair<QWidget*, QString> pages[] = {{m_targetsPage, tr("&Targets")},
                                                  {m_sweepPage, tr("&Sweep")},
                                                  {m_runPage, tr("&Run")},
                                                  {m_comparePage, tr("&Compare")}};
    int number = 1;
    for (const auto& [page, title] : pages) {
        QAction* show = view->addAction(title, this, [this, page] {
            m_pages->setCurrentWidget(page);
            page->setFocus();
        });
        show->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + number)));
        ++number;
    }
    view->addSeparator();
    QAction* fullScreen = view->addAction(tr("&Full Screen"), this, [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen
                          : windowState() & ~Qt::WindowFullScreen);
    });
    fullScreen->setCheckable(true);
    fullScreen->setShortcut(QKeySequence::FullScreen);
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About Loadscope"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    QAction* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::showAbout() {
    // Not QMessageBox::about(): it runs a nested event loop under this slot.
    auto* box = new QMessageBox(
        QMessageBox::NoIcon, tr("About Loadscope"),
        tr("<h3>Loadscope %1</h3>"
           "<p>A workbench for comparing how network servers perform under load in "
           "different deployment modes: on the host, in containers, behind NAT, bridges "
           "and proxies.</p>"
           "<p>Define one target per mode, sweep the concurrency, and read requests/s, "
           "transfer rate and latency percentiles side by side.</p>")
            .arg(QStringLiteral(LOADSCOPE_VERSION)),
        QMessageBox::Ok, this);
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::rebuildRecentMenu() {
    // Pruning may announce a change and rebuild the menu from within; read
    // the files before clearing so that this pass still builds it once.
    const QStringList files = m_recentFiles->existingFiles();
    m_recentMenu->clear();
    int number = 1;
    for (const QString& file : files) {
        // Numbers give each entry a mnemonic; "&&" keeps an ampersand in a name.
        const QString name =
            QFileInfo(file).fileName().replace(QLatin1Char('&'), QStringLiteral("&&"));
        const QString text = number < 10 ? QStringLiteral("&%1 %2").arg(number).arg(name)
                                         : QStringLiteral("1&0 %1").arg(name);
        QAction* action = m_recentMenu->addAction(text, this, [this, file] { openSession(file); });
        action->setToolTip(QDir::toNativeSeparators(file));
        action->setStatusTip(QDir::toNativeSeparators(file));
        ++number;
    }
    if (!files.isEmpty())
        m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("&Clear Menu"), m_recentFiles, &RecentFiles::clear);
    clear->setEnabled(!files.isEmpty());
    m_recentMenu->setToolTipsVisible(true);
}

void MainWindow::updateActions() {
    const bool hasResults = !m_document->session().results.empty();
    const bool running = m_runner->isRunning();
    m_exportResultsAction->setEnabled(hasResults);
    m_exportSummaryAction->setEnabled(hasResults && !m_exportingSummary);
    m_exportPercentilesAction->setEnabled(hasResults);
    m_exportReportAction->setEnabled(hasResults);
    m_clearResultsAction->setEnabled(hasResults && !running && !m_opening);
    // Not while a sweep stores its points in the session, nor while another is read.
    const QUndoStack* history = SessionEdits::of(m_document)->stack();
    m_undoAction->setEnabled(history->canUndo() && !running && !m_opening);
    m_redoAction->setEnabled(history->canRedo() && !running && !m_opening);
    m_undoAction->setText(history->canUndo() ? tr("&Undo %1").arg(history->undoText())
                                             : tr("&Undo"));
    m_redoAction->setText(history->canRedo() ? tr("&Redo %1").arg(history->redoText())
                                             : tr("&Redo"));
    for (QAction* action : std::as_const(m_sessionActions))
        action->setEnabled(!m_opening);
    // The pages edit the session that is about to be replaced. Their input is
    // refused, not their widgets disabled: disabling repainted every chart of
    // the page on show twice, tens of milliseconds each for a large session.
    m_pagesBlocker->setBlocking(m_opening);
}

void MainWindow::setOpening(bool opening) {
    m_opening = opening;
    updateActions();
}

} // namespace loadscope::ui
