// Fixtures made by the real tools: ab and wrk (Debian's packages) run against
// an nginx this test starts on 127.0.0.1, and their captured output imported
// and checked against the numbers they printed.
#include "app/import/report_importer.h"
#include "import_test_support.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope::app;
using namespace import_test;

namespace {

// The output of `program arguments`, or an empty array when it did not finish
// within `timeoutMs` or failed.
QByteArray capture(const QString& program, const QStringList& arguments, int timeoutMs) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5'000);
        return {};
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return {};
    return process.readAll();
}

} // namespace

class TestImportTools : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void abAgainstNginx_data();
    void abAgainstNginx();
    void wrkAgainstNginx();

private:
    QTemporaryDir m_dir;
    QProcess m_nginx;
    QString m_url;
    QString m_ab;
    QString m_wrk;
};

void TestImportTools::initTestCase() {
    const QString nginx = QStringLiteral("/usr/sbin/nginx");
    m_ab = QStandardPaths::findExecutable(QStringLiteral("ab"));
    m_wrk = QStandardPaths::findExecutable(QStringLiteral("wrk"));
    if (!QFileInfo(nginx).isExecutable() || m_ab.isEmpty() || m_wrk.isEmpty())
        QSKIP("needs nginx (/usr/sbin/nginx), ab and wrk installed");
    QVERIFY(m_dir.isValid());

    // The 4897-byte page every run fetches.
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("www")));
    QFile page(m_dir.filePath(QStringLiteral("www/index.html")));
    QVERIFY(page.open(QIODevice::WriteOnly));
    QByteArray html = "<!DOCTYPE html>\n<html><head><title>Loadscope import</title></head><body>\n";
    while (html.size() < 4897 - 15)
        html += "<p>" + QByteArray(60, 'x') + "</p>\n";
    html.truncate(4897 - 15);
    html += "</body></html>\n";
    QCOMPARE(page.write(html), 4897);
    page.close();

    // A free port: the kernel picks one for a listener that is closed again.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const quint16 port = probe.serverPort();
    probe.close();

    const QString tmp = m_dir.path();
    const QString config =
        QStringLiteral("daemon off; master_process off; worker_processes 1;\n"
                       "error_log %1/error.log; pid %1/nginx.pid;\n"
                       "events {}\n"
                       "http { access_log off;\n"
                       // Debian's compiled-in temp paths need root; keep them here.
                       "  client_body_temp_path %1/body; proxy_temp_path %1/proxy;\n"
                       "  fastcgi_temp_path %1/fastcgi; uwsgi_temp_path %1/uwsgi;\n"
                       "  scgi_temp_path %1/scgi;\n"
                       "  server { listen 127.0.0.1:%2; root %1/www; } }\n")
            .arg(tmp)
            .arg(port);
    QFile configFile(m_dir.filePath(QStringLiteral("nginx.conf")));
    QVERIFY(configFile.open(QIODevice::WriteOnly));
    configFile.write(config.toUtf8());
    configFile.close();

    m_nginx.setProcessChannelMode(QProcess::MergedChannels);
    m_nginx.start(nginx, {QStringLiteral("-c"), configFile.fileName(), QStringLiteral("-p"), tmp,
                          QStringLiteral("-e"), tmp + QStringLiteral("/error.log")});
    QVERIFY2(m_nginx.waitForStarted(5'000), qPrintable(m_nginx.errorString()));
    // Up when it accepts a connection; 100 tries of at most 100 ms.
    bool up = false;
    for (int attempt = 0; attempt < 100 && !up && m_nginx.state() == QProcess::Running; ++attempt) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        up = socket.waitForConnected(100);
        if (!up)
            QTest::qWait(100);
    }
    QVERIFY2(up, m_nginx.readAll().constData());
    m_url = QStringLiteral("http://127.0.0.1:%1/index.html").arg(port);
}

void TestImportTools::cleanupTestCase() {
    if (m_nginx.state() == QProcess::NotRunning)
        return;
    m_nginx.terminate();
    if (!m_nginx.waitForFinished(5'000)) {
        m_nginx.kill();
        m_nginx.waitForFinished(5'000);
    }
}

void TestImportTools::abAgainstNginx_data() {
    QTest::addColumn<bool>("keepAlive");
    QTest::newRow("-k") << true;
    QTest::newRow("a connection per request") << false;
}

void TestImportTools::abAgainstNginx() {
    QFETCH(bool, keepAlive);
    QStringList arguments = {QStringLiteral("-c"), QStringLiteral("10"), QStringLiteral("-n"),
                             QStringLiteral("2000")};
    if (keepAlive)
        arguments << QStringLiteral("-k");
    arguments << m_url;
    const QByteArray output = capture(m_ab, arguments, 60'000);
    QVERIFY2(!output.isEmpty(), "ab did not finish");

    // As a user keeps it: the command typed above the output.
    const QByteArray saved =
        "bench@lab:~$ ab " + arguments.join(QLatin1Char(' ')).toUtf8() + "\n" + output;
    const ImportResult imported = importReports(QStringLiteral("ab.txt"), saved);
    QVERIFY2(imported.ok(),
             qPrintable(errorText(imported) + QLatin1Char('\n') + QString::fromUtf8(saved)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    checkAbAgainstText(report, QString::fromUtf8(output));
    QCOMPARE(report.version, QStringLiteral("2.3"));
    QCOMPARE(report.url, m_url);
    QCOMPARE(report.requests, std::optional<uint64_t>(2000));
    QCOMPARE(report.keepAlive, std::optional<bool>(keepAlive));
    QCOMPARE(report.firstLine, 1);
    QCOMPARE(report.result.complete, 2000ULL);
    QCOMPARE(report.result.failed, 0ULL);
    QCOMPARE(report.result.documentLength, 4897);
    QCOMPARE(report.result.keepAlive, keepAlive ? 2000ULL : 0ULL);
    QVERIFY(report.result.serverSoftware.startsWith(QLatin1String("nginx/")));
}

void TestImportTools::wrkAgainstNginx() {
    const QStringList arguments = {QStringLiteral("-t1"), QStringLiteral("-c10"),
                                   QStringLiteral("-d1s"), QStringLiteral("--latency"), m_url};
    const QByteArray output = capture(m_wrk, arguments, 30'000);
    QVERIFY2(!output.isEmpty(), "wrk did not finish");
    const ImportResult imported = importReports(QStringLiteral("wrk.txt"), output);
    QVERIFY2(imported.ok(),
             qPrintable(errorText(imported) + QLatin1Char('\n') + QString::fromUtf8(output)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    checkWrkAgainstText(report, QString::fromUtf8(output));
    QCOMPARE(report.url, m_url);
    QCOMPARE(report.result.concurrency, 10);
    QCOMPARE(report.result.threads, 1);
    QVERIFY(report.result.complete > 0);
    QCOMPARE(static_cast<int>(report.result.total.percentilesMs.size()), 4);
}

QTEST_GUILESS_MAIN(TestImportTools)
#include "tst_import_tools.moc"
