// ab's reports read into results: a terminal session with several reports,
// the layout of older versions and the variants its options print (keep-alive,
// POST, failed requests, percentiles or none). The other tools' parsers are
// tst_import_parsers'.
#include "app/import/report_importer.h"
#include "import_test_support.h"

#include <QTest>

using namespace loadscope::app;
using namespace import_test;

class TestImportAb : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void abTerminalSession();
    void abLegacyLayout();
    void abVariants_data();
    void abVariants();
};

void TestImportAb::abTerminalSession() {
    // Pasted from a terminal: prompt and command above each report, progress
    // lines, CRLF line ends, French and Japanese notes around, two reports.
    const QByteArray content = fixture(QStringLiteral("ab_terminal_session.txt"));
    const ImportResult imported = importReports(QStringLiteral("session.txt"), content);
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 2);
    const QString text = QString::fromUtf8(content);
    for (const ImportedReport& report : *imported)
        checkAbAgainstText(report, reportText(text, report));

    const ImportedReport& first = imported->at(0);
    QCOMPARE(first.version, QStringLiteral("2.3"));
    QCOMPARE(first.firstLine, 3); // the command line
    QVERIFY(first.commandLine.startsWith(QLatin1String("ab -c 4 -n 120 -k http://127.0.0.1:")));
    QCOMPARE(first.requests, std::optional<uint64_t>(120));
    QCOMPARE(first.keepAlive, std::optional<bool>(true));
    QCOMPARE(first.concurrency, std::optional<int>(4));
    QVERIFY(first.url.endsWith(QLatin1String("/index.html")));

    const ImportedReport& second = imported->at(1);
    QCOMPARE(second.requests, std::optional<uint64_t>(2000));
    QCOMPARE(second.concurrency, std::optional<int>(10));
    QCOMPARE(second.keepAlive, std::optional<bool>(true));
    QVERIFY(second.firstLine > first.lastLine);
    QVERIFY(first.result.source.fingerprint != second.result.source.fingerprint);
}

void TestImportAb::abLegacyLayout() {
    const QByteArray content = fixture(QStringLiteral("ab_2.0.40_failures.txt"));
    const ImportResult imported = importReports(QStringLiteral("old.txt"), content);
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    checkAbAgainstText(report, QString::fromUtf8(content));
    QCOMPARE(report.version, QStringLiteral("2.0.40-dev"));
    QCOMPARE(report.url, QStringLiteral("http://www.example.org:8080/app/status"));
    QCOMPARE(report.keepAlive,
             std::optional<bool>(true)); // "Keep-Alive requests" is printed only with -k
    const PointResult& r = report.result;
    QCOMPARE(r.failed, 37ULL);
    QCOMPARE(r.errors[static_cast<size_t>(loadscope::engine::ErrorClass::Length)], 37ULL);
    QCOMPARE(r.errors[static_cast<size_t>(loadscope::engine::ErrorClass::Connect)], 0ULL);
    QCOMPARE(r.non2xx, 12ULL);
    QVERIFY(r.durationSeconds == 14.870193);
    QVERIFY(*r.reportedRequestsPerSecond == 672.49);
    QCOMPARE(r.total.percentile(99).value_or(-1), 214.0);
    QCOMPARE(r.total.maxMs.value_or(-1), 812.0);
}

void TestImportAb::abVariants_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("url");
    QTest::addColumn<qint64>("documentLength");
    QTest::addColumn<qint64>("requests"); // -1: the command was not kept
    QTest::addColumn<quint64>("failed");
    QTest::addColumn<quint64>("bytesSent");
    QTest::addColumn<bool>("spread"); // sd and median printed
    QTest::addColumn<int>("percentiles");
    QTest::addColumn<QString>("error");

    const QByteArray plain = fixture(QStringLiteral("ab_2.3_keepalive.txt"));
    const QString url = QStringLiteral("http://127.0.0.1:53549/index.html");
    const QByteArray command = "$ ab -k -c 10 -n 2000 http://127.0.0.1:53549/index.html\n";
    const auto edited = [&plain](const char* from, const char* to) {
        QByteArray text = plain;
        text.replace(from, to);
        return text;
    };
    QTest::newRow("plain") << plain << url << qint64(4897) << qint64(-1) << quint64(0) << quint64(0)
                           << true << 9 << QString();
    QTest::newRow("https")
        << edited("Server Port:            53549\n",
                  "Server Port:            443\n"
                  "SSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256\n"
                  "Server Temp Key:        X25519 253 bits\n"
                  "TLS Server Name:        127.0.0.1\n")
        << QStringLiteral("https://127.0.0.1/index.html") << qint64(4897) << qint64(-1)
        << quint64(0) << quint64(0) << true << 9 << QString();
    QTest::newRow("-l") << edited("4897 bytes", "Variable") << url << qint64(-1) << qint64(-1)
                        << quint64(0) << quint64(0) << true << 9 << QString();
    QTest::newRow("failures") << edited("Failed requests:        0\n",
                                        "Failed requests:        7\n"
                                        "   (Connect: 1, Receive: 2, Length: 3, Exceptions: 1)\n"
                                        "Write errors:           4\n")
                              << url << qint64(4897) << qint64(-1) << quint64(7) << quint64(0)
                              << true << 9 << QString();
    QByteArray post =
        edited("HTML transferred:", "Total body sent:        524288\nHTML transferred:");
    post.replace("received\n", "received\n                        18270.65 kb/s sent\n"
                               "                        374918.00 kb/s total\n");
    QTest::newRow("POST") << post << url << qint64(4897) << qint64(-1) << quint64(0)
                          << quint64(524288) << true << 9 << QString();
    const qsizetype table = plain.indexOf("              min");
    const qsizetype tableEnd = plain.indexOf("\n\nPercentage");
    QByteArray noSpread = plain;
    noSpread.replace(table, tableEnd - table,
                     "              min   avg   max\nConnect:        0    0    0\n"
                     "Processing:     0    0    1\nWaiting:        0    0    0\n"
                     "Total:          0    0    1");
    QTest::newRow("-S") << noSpread << url << qint64(4897) << qint64(-1) << quint64(0) << quint64(0)
                        << false << 9 << QString();
    const QByteArray noTable = plain.left(plain.indexOf("\nPercentage of"));
    QTest::newRow("-d") << "$ ab -d -k -c 10 -n 2000 http://127.0.0.1:53549/index.html\n" + noTable
                        << url << qint64(4897) << qint64(2000) << quint64(0) << quint64(0) << true
                        << 1 << QString();
    QTest::newRow("-d not typed") << noTable << url << qint64(4897) << qint64(-1) << quint64(0)
                                  << quint64(0) << true << 1
                                  << QStringLiteral("a.txt:43: ab report cut off after 'Total'");
    QByteArray quick = plain;
    quick.replace(quick.indexOf("Benchmarking"),
                  quick.indexOf("\n\n\nServer") - quick.indexOf("Benchmarking"),
                  "Benchmarking 127.0.0.1 (be patient).....done");
    QTest::newRow("few requests") << quick << url << qint64(4897) << qint64(-1) << quint64(0)
                                  << quint64(0) << true << 9 << QString();
    QTest::newRow("sudo after a root prompt")
        << "root@box:/srv# sudo ab -k -c 10 -n 2000 http://127.0.0.1:53549/index.html\n" + plain
        << url << qint64(4897) << qint64(2000) << quint64(0) << quint64(0) << true << 9
        << QString();
    QTest::newRow("command") << command + plain << url << qint64(4897) << qint64(2000) << quint64(0)
                             << quint64(0) << true << 9 << QString();
    QTest::newRow("prose is no command")
        << "Then I ran ab -c 50 -n 100 http://10.1.1.1/ from the other box:\n\n" + plain << url
        << qint64(4897) << qint64(-1) << quint64(0) << quint64(0) << true << 9 << QString();
}

void TestImportAb::abVariants() {
    QFETCH(QByteArray, content);
    QFETCH(QString, url);
    QFETCH(qint64, documentLength);
    QFETCH(qint64, requests);
    QFETCH(quint64, failed);
    QFETCH(quint64, bytesSent);
    QFETCH(bool, spread);
    QFETCH(int, percentiles);
    QFETCH(QString, error);
    const ImportResult imported = importReports(QStringLiteral("a.txt"), content);
    QCOMPARE(errorText(imported), error);
    if (!error.isEmpty())
        return;
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.url, url);
    QCOMPARE(r.documentLength, documentLength);
    QCOMPARE(report.requests.has_value(), requests >= 0);
    if (requests >= 0)
        QCOMPARE(*report.requests, static_cast<uint64_t>(requests));
    QCOMPARE(r.failed, failed);
    QCOMPARE(r.bytesSent, bytesSent);
    QCOMPARE(r.total.sdMs.has_value(), spread);
    QCOMPARE(static_cast<int>(r.total.percentilesMs.size()), percentiles);
    QVERIFY(*r.reportedRequestsPerSecond == 71093.42);
    QCOMPARE(r.complete, 2000ULL);
    if (failed > 0) {
        using loadscope::engine::ErrorClass;
        QCOMPARE(r.errors[static_cast<size_t>(ErrorClass::Connect)], 1ULL);
        QCOMPARE(r.errors[static_cast<size_t>(ErrorClass::Receive)], 2ULL);
        QCOMPARE(r.errors[static_cast<size_t>(ErrorClass::Length)], 3ULL);
        QCOMPARE(r.errors[static_cast<size_t>(ErrorClass::Exception)], 1ULL);
        QCOMPARE(r.errors[static_cast<size_t>(ErrorClass::Write)], 4ULL);
    }
}

QTEST_GUILESS_MAIN(TestImportAb)
#include "tst_import_ab.moc"
