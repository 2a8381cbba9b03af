#pragma once

#include "app/common/result.h"

#include <QCoroTask>
#include <QList>
#include <QMainWindow>
#include <QPointer>
#include <functional>

class QAction;
class QLabel;
class QMenu;
class QTabWidget;

namespace loadscope::app {
struct Session;
class SessionDocument;
class SweepRunner;
} // namespace loadscope::app

namespace loadscope::ui {

class ComparePage;
class InputBlocker;
class RecentFiles;
class RunPage;
class SweepPage;
class TargetsPage;

// The workbench window. A composition root: it owns the session document
// and the sweep runner, puts the four pages side by side, and wires menus,
// files and desktop conventions to them; what a page shows is the page's.
//
// Every file operation has a path-taking form that opens no file dialog, so
// that the command line, drops and tests reach the same code the menus do.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class UnsavedChoice { Save, Discard, Cancel };

    // Everything the window asks the user. Each prompt puts its question and
    // returns at once, without waiting (no exec(), no nested event loop);
    // once the user has answered it calls its answer, once. A file prompt
    // answers an empty string when the user cancelled. An answer dropped
    // uncalled (the dialog went with its window) counts as Cancel, or as an
    // empty string. The defaults are window-modal dialogs (dialogPrompts());
    // tests replace them so that nothing modal opens.
    struct Prompts {
        using UnsavedAnswer = std::function<void(UnsavedChoice)>;
        using FileAnswer = std::function<void(const QString& path)>;
        std::function<void(const QString& sessionName, UnsavedAnswer answer)> unsavedChanges;
        std::function<void(const QString& title, const QString& suggestedPath,
                           const QString& filter, FileAnswer answer)>
            saveFileName;
        std::function<void(const QString& title, const QString& directory, const QString& filter,
                           FileAnswer answer)>
            openFileName;
        std::function<void(const QString& title, const QString& directory, FileAnswer answer)>
            directory;
        std::function<void(const QString& title, const QString& message)> error;
    };
    // The dialogs over `parent`: each opened with open() and deleted on close.
    static Prompts dialogPrompts(QWidget* parent);

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    app::SessionDocument* document() const { return m_document; }
    app::SweepRunner* runner() const { return m_runner; }
    RecentFiles* recentFiles() const { return m_recentFiles; }
    TargetsPage* targetsPage() const { return m_targetsPage; }
    SweepPage* sweepPage() const { return m_sweepPage; }
    QTabWidget* pages() const { return m_pages; }
    void setPrompts(Prompts prompts);

    // Each finishes false when nothing happened (cancelled, refused, or
    // failed with the error shown); the session is left as it was then. They
    // may ask the user first and finish once answered; meanwhile the event
    // loop runs, so what they check before asking they check again after.
    // A window deleted meanwhile receives nothing (false). Callers that need
    // not wait may drop the task: it runs to its end regardless.
    QCoro::Task<bool> newSession();
    // A .loadscope file or an example's name ("demo-proxy"). The file is read
    // on a worker thread; meanwhile whatever would change the session is
    // disabled, and a second open is refused. The session is applied here
    // once read.
    QCoro::Task<bool> openSession(QString pathOrExampleName);
    bool isOpening() const { return m_opening; }
    // Into the session's file, or under a name asked for when it has none.
    QCoro::Task<bool> saveSession();
    // Into `path` (".loadscope" added without a suffix), asking nothing. The
    // file is written on a worker thread (SessionDocument::saveInBackground()).
    QCoro::Task<bool> saveSessionAs(QString path);
    // The other path-taking forms ask nothing. The exports are made and
    // written on a worker thread from a copy of the session (the summary's
    // comparison too).
    QCoro::Task<bool> exportResultsCsv(QString path);
    QCoro::Task<bool> exportSummaryCsv(QString path);
    QCoro::Task<bool> exportPercentileDistributions(QString directory);
    // Starts the report: it is written once the Compare charts show the
    // current session, and its outcome is shown then (true: started).
    bool exportReportPdf(const QString& path);
    // Asks about unsaved changes (save, discard, cancel); true when the
    // session may now be replaced or closed. While one such question is up
    // a second is not put: it finishes false at once.
    QCoro::Task<bool> confirmDiscardOrSave();
    // Whether the session may be replaced (`what`: the action, for a refusal):
    // no open or sweep in progress, its changes saved or discarded, and
    // still so once the user answered.
    QCoro::Task<bool> mayReplaceSession(QString what);
    bool isAskingAboutUnsavedChanges() const { return m_askingAboutUnsaved; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // main_window.cpp: pages, title, settings, events.
    void createPages();
    void updateTitle();
    void updateStatus();
    void readSettings();
    void writeSettings() const;
    void showError(const QString& title, const QString& message);
    bool refuseWhileRunning(const QString& what);
    // True (and the user taken to the field, told which and why) while a target's or the
    // plan's field shows an error; `what` names the refused action ("Start", "Save").
    bool refuseFieldInError(const QString& what);
    // closeEvent's question; on Save (saved) or Discard it closes the window.
    QCoro::Task<> closeOnceConfirmed();
    QCoro::Task<> closeOnceSaved();
    // Saves into `path` as it is (SessionDocument::saveInBackground()) and says how it went.
    QCoro::Task<bool> writeSession(QString path);

    // main_window_menus.cpp: actions and menus.
    void createMenus();
    QMenu* createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createRunMenu();
    void createToolBar();
    void createHelpMenu();
    void rebuildRecentMenu();
    void updateActions();
    void setOpening(bool opening);
    void showAbout();

    // main_window_files.cpp: what the File menu's dialogs lead to.
    // Coroutines: their arguments are taken by value, as they outlive the call.
    QCoro::Task<> chooseAndOpen();
    QCoro::Task<bool> chooseAndSaveAs();
    QCoro::Task<> chooseAndExport(QString title, QString suffix, QString filter,
                                  std::function<void(const QString&)> exportTo);
    QCoro::Task<> chooseAndExportPercentiles();
    void showImportDialog();
    QString suggestedPath(const QString& suffix) const;
    void rememberDirectory(const QString& path);
    // Writes make(session) to `path` on a worker thread, from the session's
    // immutable copy, and shows how it went (exported()).
    QCoro::Task<bool> exportBytes(QString path, QString what,
                                  std::function<QByteArray(const app::Session&)> make);
    // Shows how writing the export `what` to `path` went; true when it was written.
    bool exported(const app::Result<void>& written, const QString& path, const QString& what);

    app::SessionDocument* m_document = nullptr;
    app::SweepRunner* m_runner = nullptr;
    RecentFiles* m_recentFiles = nullptr;
    Prompts m_prompts;

    QTabWidget* m_pages = nullptr;
    InputBlocker* m_pagesBlocker = nullptr; // while a session opens
    TargetsPage* m_targetsPage = nullptr;
    SweepPage* m_sweepPage = nullptr;
    RunPage* m_runPage = nullptr;
    ComparePage* m_comparePage = nullptr;
    QLabel* m_sessionSummary = nullptr;

    QMenu* m_recentMenu = nullptr;
    QAction* m_newAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_undoAction = nullptr;
    QAction* m_redoAction = nullptr;
    QAction* m_exportResultsAction = nullptr;
    QAction* m_exportSummaryAction = nullptr;
    QAction* m_exportPercentilesAction = nullptr;
    QAction* m_exportReportAction = nullptr;
    QAction* m_clearResultsAction = nullptr;
    // New, Open, the examples, Open Recent, Save, Save As, Import: off while a
    // session is being read.
    QList<QAction*> m_sessionActions;
    bool m_opening = false;
    bool m_exportingSummary = false;
    bool m_askingAboutUnsaved = false;
    // The user said Save (saved) or Discard to closing: the close that
    // follows asks nothing.
    bool m_closeConfirmed = false;
    bool m_closeAfterSave = false; // closeOnceSaved() waits for a save to end
};

} // namespace loadscope::ui
