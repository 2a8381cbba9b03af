// MainWindow's file operations behind the File menu: dialogs lead to the
// path-taking functions, which do the work.
#include "app/common/atomic_file_writer.h"
#include "app/common/background_job.h"
#include "app/session/comparison.h"
#include "app/session/csv_export.h"
#include "app/session/percentile_export.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "ui/common/background_settings.h"
#include "ui/common/plural.h"
#include "ui/compare/compare_page.h"
#include "ui/shell/import_dialog.h"
#include "ui/shell/main_window.h"
#include "ui/shell/pending_answer.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/targets_page.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <memory>

namespace loadscope::ui {

namespace {

const QString kDirectoryKey = QStringLiteral("session/lastDirectory");

QString sessionFilter() {
    return QObject::tr("Loadscope sessions (*.loadscope);;All files (*)");
}

} // namespace

QString MainWindow::suggestedPath(const QString& suffix) const {
    QString directory = settings::value(kDirectoryKey).toString();
    if (directory.isEmpty() || !QFileInfo(directory).isDir())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!m_document->filePath().isEmpty() && suffix == QLatin1String(".loadscope"))
        return m_document->filePath();
    // A file name from the session's name, without what file systems dislike.
    static const QRegularExpression unsafe(QStringLiteral("[^\\w.-]+"));
    QString base = m_document->displayName().replace(unsafe, QStringLiteral("-"));
    if (base.isEmpty())
        base = QStringLiteral("session");
    return QDir(directory).filePath(base.left(60) + suffix);
}

void MainWindow::rememberDirectory(const QString& path) {
    settings::setValue(kDirectoryKey, QFileInfo(path).absolutePath());
}

QCoro::Task<> MainWindow::chooseAndOpen() {
    // The unsaved-changes question comes with openSession(), once a file is chosen.
    PendingAnswer<QString> path{QString()};
    m_prompts.openFileName(tr("Open Session"),
                           QFileInfo(suggestedPath(QStringLiteral(".loadscope"))).absolutePath(),
                           sessionFilter(), path.answer());
    QPointer<MainWindow> self(this);
    const QString chosen = co_await path;
    if (self && !chosen.isEmpty())
        openSession(chosen); // refuses if an open or a sweep started meanwhile
}

QCoro::Task<bool> MainWindow::openSession(QString pathOrExampleName) {
    QPointer<MainWindow> self(this);
    if (!co_await mayReplaceSession(tr("Open Session")))
        co_return false; // (false too when the window went meanwhile)
    setOpening(true);
    struct Loaded {
        app::Result<app::Session> session;
        // Its immutable copy, for the pages' workers (SessionDocument::sharedSession()).
        std::shared_ptr<const app::Session> shared;
        QString filePath; // empty for an example: it lives in read-only resources
    };
    // A named closure: GCC 12 moves a temporary one's captures out of the
    // coroutine frame when it is built inside the co_await expression.
    const auto read = [pathOrExampleName] {
        auto loaded =
            std::make_shared<Loaded>(Loaded{app::openSession(pathOrExampleName), nullptr, {}});
        if (loaded->session)
            loaded->shared = std::make_shared<const app::Session>(*loaded->session);
        if (const QFileInfo file(pathOrExampleName); file.isFile())
            loaded->filePath = file.absoluteFilePath();
        return loaded;
    };
    const std::shared_ptr<Loaded> loaded = co_await app::runOnWorkerThread(read);
    if (!self)
        co_return false; // the window is gone: nothing to apply the session to
    setOpening(false);
    if (!loaded->session) {
        showError(tr("Cannot Open Session"), loaded->session.error().toString());
        co_return false;
    }
    m_document->reset(std::move(*loaded->session), std::move(loaded->shared), loaded->filePath);
    if (!loaded->filePath.isEmpty()) {
        m_recentFiles->add(loaded->filePath);
        rememberDirectory(loaded->filePath);
    }
    statusBar()->showMessage(tr("Opened %1").arg(m_document->displayName()), 3000);
    // The session opened; the results that broke a rule are kept in the file
    // but left out, and the user is told which.
    QStringList setAside;
    for (const app::SetAsideResult& kept : m_document->session().setAside)
        setAside << kept.problem;
    if (!setAside.isEmpty())
        showError(tr("Results Set Aside"), setAside.join(QLatin1Char('\n')));
    co_return true;
}

QCoro::Task<bool> MainWindow::chooseAndSaveAs() {
    if (refuseFieldInError(tr("Save")))
        co_return false;
    PendingAnswer<QString> path{QString()};
    m_prompts.saveFileName(tr("Save Session As"), suggestedPath(QStringLiteral(".loadscope")),
                           sessionFilter(), path.answer());
    QPointer<MainWindow> self(this);
    const QString chosen = co_await path;
    // What is saved is the session as it is now, edits made meanwhile too.
    if (!self || chosen.isEmpty())
        co_return false;
    co_return co_await saveSessionAs(chosen);
}

QCoro::Task<> MainWindow::chooseAndExport(QString title, QString suffix, QString filter,
                                          std::function<void(const QString&)> exportTo) {
    if (refuseFieldInError(tr("Export")))
        co_return;
    PendingAnswer<QString> path{QString()};
    m_prompts.saveFileName(title, suggestedPath(suffix), filter, path.answer());
    QPointer<MainWindow> self(this);
    const QString chosen = co_await path;
    if (!self || chosen.isEmpty())
        co_return;
    rememberDirectory(chosen);
    exportTo(chosen);
}

QCoro::Task<> MainWindow::chooseAndExportPercentiles() {
    if (refuseFieldInError(tr("Export")))
        co_return;
    PendingAnswer<QString> directory{QString()};
    m_prompts.directory(tr("Export Percentile Distributions Into"),
                        QFileInfo(suggestedPath(QStringLiteral(".hgrm"))).absolutePath(),
                        directory.answer());
    QPointer<MainWindow> self(this);
    const QString chosen = co_await directory;
    if (!self || chosen.isEmpty())
        co_return;
    settings::setValue(kDirectoryKey, chosen);
    exportPercentileDistributions(chosen);
}

void MainWindow::showImportDialog() {
    if (refuseWhileRunning(tr("Import")))
        return;
    auto* dialog = new ImportDialog(m_document, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Outputs usually belong to the target the user is looking at.
    if (const app::Target* selected =
            m_document->session().findTarget(m_targetsPage->selectedTargetId()))
        dialog->setTargetName(selected->displayName());
    connect(dialog, &ImportDialog::importFinished, this, [this](const QString& summary) {
        statusBar()->showMessage(summary, 5000);
        m_pages->setCurrentWidget(m_comparePage);
    });
    dialog->open();
}

bool MainWindow::exported(const app::Result<void>& written, const QString& path,
                          const QString& what) {
    if (!written) {
        showError(tr("Cannot Export %1").arg(what), written.error().toString());
        return false;
    }
    statusBar()->showMessage(tr("Exported %1 to %2").arg(what, QDir::toNativeSeparators(path)),
                             5000);
    return true;
}

QCoro::Task<bool> MainWindow::exportBytes(QString path, QString what,
                                          std::function<QByteArray(const app::Session&)> make) {
    if (refuseFieldInError(tr("Export")))
        co_return false;
    const auto write = [session = m_document->sharedSession(), path, make = std::move(make)] {
        return std::make_shared<app::Result<void>>(app::writeFileAtomically(path, make(*session)));
    };
    QPointer<MainWindow> self(this);
    const std::shared_ptr<app::Result<void>> written = co_await app::runOnWorkerThread(write);
    co_return self&& exported(*written, path, what);
}

QCoro::Task<bool> MainWindow::exportResultsCsv(QString path) {
    // Ten thousand results are megabytes of CSV.
    co_return co_await exportBytes(path, tr("Results CSV"), [](const app::Session& session) {
        return app::resultsCsv(session);
    });
}

QCoro::Task<bool> MainWindow::exportSummaryCsv(QString path) {
    if (m_exportingSummary)
        co_return false;
    m_exportingSummary = true;
    updateActions();
    QPointer<MainWindow> self(this);
    // A comparison of ten thousand results takes tens of milliseconds.
    const bool written =
        co_await exportBytes(path, tr("Summary CSV"), [](const app::Session& session) {
            return app::summaryCsv(session, app::Comparison(session));
        });
    if (!self)
        co_return false;
    m_exportingSummary = false;
    updateActions();
    co_return written;
}

QCoro::Task<bool> MainWindow::exportPercentileDistributions(QString directory) {
    if (refuseFieldInError(tr("Export")))
        co_return false;
    // Each distribution is merged from the stored histograms: on a worker.
    const auto write = [session = m_document->sharedSession(), directory] {
        return std::make_shared<app::Result<QStringList>>(
            app::writePercentileDistributions(*session, directory));
    };
    QPointer<MainWindow> self(this);
    const std::shared_ptr<app::Result<QStringList>> done = co_await app::runOnWorkerThread(write);
    if (!self)
        co_return false;
    const app::Result<QStringList>& written = *done;
    if (!written) {
        showError(tr("Cannot Export Percentile Distributions"), written.error().toString());
        co_return false;
    }
    if (written->isEmpty()) {
        showError(tr("Nothing to Export"),
                  tr("No result of this session carries a latency histogram (imported "
                     "reports and cancelled points have none)."));
        co_return false;
    }
    statusBar()->showMessage(
        plural(written->size(), tr("Exported 1 distribution"), tr("Exported %1 distributions")) +
            tr(" to %1").arg(QDir::toNativeSeparators(directory)),
        5000);
    co_return true;
}

bool MainWindow::exportReportPdf(const QString& path) {
    if (refuseFieldInError(tr("Export")))
        return false;
    // The page writes the report once its charts show the current session
    // (a rebuild may still run on its worker thread); the outcome is shown then.
    QCoro::connect(
        m_comparePage->exportReportPdf(path), this, [this, path](const app::Result<void>& written) {
            if (!written) {
                showError(tr("Cannot Export Report"), written.error().message);
                return;
            }
            statusBar()->showMessage(
                tr("Exported the report to %1").arg(QDir::toNativeSeparators(path)), 5000);
        });
    return true;
}

} // namespace loadscope::ui
