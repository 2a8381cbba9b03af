// MainWindow's file operations behind the File menu: dialogs lead to the
// path-taking functions, which do the work.
#include "app/session/comparison.h"
#include "app/session/csv_export.h"
#include "app/session/percentile_export.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "ui/common/plural.h"
#include "ui/compare/compare_page.h"
#include "ui/shell/import_dialog.h"
#include "ui/shell/main_window.h"
#include "ui/shell/targets_page.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>

namespace loadscope::ui {

namespace {

const QString kDirectoryKey = QStringLiteral("session/lastDirectory");

QString sessionFilter() {
    return QObject::tr("Loadscope sessions (*.loadscope);;All files (*)");
}

} // namespace

QString MainWindow::suggestedPath(const QString& suffix) const {
    QString directory = QSettings().value(kDirectoryKey).toString();
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
    QSettings().setValue(kDirectoryKey, QFileInfo(path).absolutePath());
}

void MainWindow::chooseAndOpen() {
    // The unsaved-changes question comes with openSession(), once a file is chosen.
    const QString path = m_prompts.openFileName(
        tr("Open Session"), QFileInfo(suggestedPath(QStringLiteral(".loadscope"))).absolutePath(),
        sessionFilter());
    if (!path.isEmpty())
        openSession(path);
}

bool MainWindow::chooseAndSaveAs() {
    const QString path = m_prompts.saveFileName(
        tr("Save Session As"), suggestedPath(QStringLiteral(".loadscope")), sessionFilter());
    return !path.isEmpty() && saveSessionAs(path);
}

void MainWindow::chooseAndExport(const QString& title, const QString& suffix, const QString& filter,
                                 bool (MainWindow::*exportTo)(const QString&)) {
    const QString path = m_prompts.saveFileName(title, suggestedPath(suffix), filter);
    if (path.isEmpty())
        return;
    rememberDirectory(path);
    (this->*exportTo)(path);
}

void MainWindow::chooseAndExportPercentiles() {
    const QString directory =
        m_prompts.directory(tr("Export Percentile Distributions Into"),
                            QFileInfo(suggestedPath(QStringLiteral(".hgrm"))).absolutePath());
    if (directory.isEmpty())
        return;
    QSettings().setValue(kDirectoryKey, directory);
    exportPercentileDistributions(directory);
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

bool MainWindow::writeFile(const QString& path, const QByteArray& bytes, const QString& what) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        showError(tr("Cannot Export %1").arg(what),
                  tr("%1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
        return false;
    }
    statusBar()->showMessage(tr("Exported %1 to %2").arg(what, QDir::toNativeSeparators(path)),
                             5000);
    return true;
}

bool MainWindow::exportResultsCsv(const QString& path) {
    return writeFile(path, app::resultsCsv(m_document->session()), tr("Results CSV"));
}

bool MainWindow::exportSummaryCsv(const QString& path) {
    const app::Session& session = m_document->session();
    return writeFile(path, app::summaryCsv(session, app::Comparison(session)), tr("Summary CSV"));
}

bool MainWindow::exportPercentileDistributions(const QString& directory) {
    const auto written = app::writePercentileDistributions(m_document->session(), directory);
    if (!written) {
        showError(tr("Cannot Export Percentile Distributions"), written.error().toString());
        return false;
    }
    if (written->isEmpty()) {
        showError(tr("Nothing to Export"),
                  tr("No result of this session carries a latency histogram (imported "
                     "reports and cancelled points have none)."));
        return false;
    }
    statusBar()->showMessage(
        plural(written->size(), tr("Exported 1 distribution"), tr("Exported %1 distributions")) +
            tr(" to %1").arg(QDir::toNativeSeparators(directory)),
        5000);
    return true;
}

bool MainWindow::exportReportPdf(const QString& path) {
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
