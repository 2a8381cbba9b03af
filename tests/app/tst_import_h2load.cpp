// h2load's reports: made live against the embedded HTTP/2 server, whose request count and
// document size are known, and captured once (h2load 1.52 against nginx and the embedded
// server); plus reports cut short or garbled, refused in one line naming the line.
#include "app/import/report_importer.h"
#include "app/servers/http_server.h"
#include "cli_process.h"
#include "import_test_support.h"
#include "required_here.h"

#include <QTest>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace import_test;

class TestImportH2load : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void liveRunAgainstTheEmbeddedServer_data();
    void liveRunAgainstTheEmbeddedServer();
    void capturedReports_data();
    void capturedReports();
    void refusals_data();
    void refusals();
};

void TestImportH2load::liveRunAgainstTheEmbeddedServer_data() {
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("http1");
    QTest::newRow("h2c") << false << false;
    QTest::newRow("h2 over tls") << true << false;
    QTest::newRow("--h1") << false << true;
}

void TestImportH2load::liveRunAgainstTheEmbeddedServer() {
    QFETCH(bool, tls);
    QFETCH(bool, http1);
    const QString h2load = toolPath(QStringLiteral("h2load"));
    if (h2load.isEmpty())
        LOADSCOPE_SKIP_UNLESS_REQUIRED(
            QStringLiteral("h2load"),
            QStringLiteral("h2load (Debian nghttp2-client) is not installed"));
    HttpServerConfig config;
    config.documentSize = 7777;
    config.threads = 2;
    config.http2 = true;
    config.tls = tls;
    HttpServer server(config);
    QVERIFY(server.start().ok());
    const QString url = QStringLiteral("%1://127.0.0.1:%2/")
                            .arg(tls ? QStringLiteral("https") : QStringLiteral("http"))
                            .arg(server.port());
    QStringList arguments{QStringLiteral("-n"), QStringLiteral("3000"), QStringLiteral("-c"),
                          QStringLiteral("6"),  QStringLiteral("-m"),   QStringLiteral("5"),
                          QStringLiteral("-t"), QStringLiteral("2"),    url};
    if (http1)
        arguments.prepend(QStringLiteral("--h1"));
    const CliOutcome run = runProgram(h2load, arguments);
    QCOMPARE(run.exitCode, 0);
    server.stop();
    // Saved as a user would keep it: the command typed, then what h2load printed.
    QByteArray saved = QByteArrayLiteral("$ h2load ");
    saved += arguments.join(QLatin1Char(' ')).toUtf8();
    saved += '\n';
    saved += run.out;
    const ImportResult imported = importReports(QStringLiteral("h2load.txt"), saved);
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    QCOMPARE(report.tool, QStringLiteral("h2load"));
    QCOMPARE(report.url, url);
    QCOMPARE(report.applicationProtocol, http1 ? QStringLiteral("http/1.1")
                                         : tls ? QStringLiteral("h2")
                                               : QStringLiteral("h2c"));
    QCOMPARE(report.threads, 2);
    QCOMPARE(report.concurrency, 6);
    QCOMPARE(report.streams, 5);
    QCOMPARE(report.requests, 3000ULL);
    // What the server answered, counted on its side.
    QCOMPARE(server.stats().requests, uint64_t(3000));
    const PointResult& r = report.result;
    QCOMPARE(r.complete, 3000ULL);
    QCOMPARE(r.failed, 0ULL);
    QCOMPARE(r.non2xx, 0ULL);
    QCOMPARE(report.statusClasses.at(2), 3000ULL);
    QCOMPARE(r.bytesBody, 3000ULL * 7777);
    QVERIFY(r.bytesTotal > r.bytesBody + report.headerBytes.value_or(0));
    QCOMPARE(r.concurrency, 6);
    QCOMPARE(r.threads, 2);
    QCOMPARE(r.tlsProtocol.isEmpty(), !tls);
    QVERIFY(r.durationSeconds > 0);
    // requests/s as printed, which is the count over the time printed (to its rounding).
    QVERIFY(std::fabs(r.reportedRequestsPerSecond.value_or(0) * r.durationSeconds - 3000) < 30);
    for (const LatencySummary* summary : {&r.total, &r.connect, &report.firstByte}) {
        QVERIFY(summary->minMs && summary->meanMs && summary->maxMs && summary->sdMs);
        QVERIFY(*summary->minMs <= *summary->meanMs && *summary->meanMs <= *summary->maxMs);
    }
}

void TestImportH2load::capturedReports_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("protocol");
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("clients");
    QTest::addColumn<int>("streams"); // 0: not known (no command kept)
    QTest::addColumn<qulonglong>("complete");
    QTest::addColumn<qulonglong>("non2xx");
    QTest::addColumn<qulonglong>("total");
    QTest::addColumn<qulonglong>("data");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<double>("requestsPerSecond");
    QTest::addColumn<QList<double>>("requestTimes"); // min, max, mean, sd in ms
    // The figures as each file prints them.
    QTest::newRow("404s from nginx, three threads")
        << "h2load_h2c_not_found.txt"
        << "h2c" << 3 << 6 << 4 << 3000ULL << 3000ULL << 663294ULL << 459000ULL << 0.24772
        << 12110.40 << QList<double>{0.062, 9.67, 1.77, 1.88};
    QTest::newRow("tls, version line, no command")
        << "h2load_tls_two_threads.txt"
        << "h2" << 2 << 8 << 0 << 10000ULL << 0ULL << 49240312ULL << 48970000ULL << 0.48226
        << 20735.66 << QList<double>{0.101, 39.55, 3.63, 4.68};
    // -D: the rate is over the 2 s of main duration, not the 3 s with the warm-up.
    QTest::newRow("timing-based") << "h2load_timing_based.txt"
                                  << "h2c" << 1 << 4 << 8 << 60112ULL << 0ULL << 1204464144ULL
                                  << 1747840000ULL << 2.0 << 30056.00
                                  << QList<double>{0.125, 8.21, 0.849, 1.05};
}

void TestImportH2load::capturedReports() {
    QFETCH(QString, name);
    QFETCH(QString, protocol);
    QFETCH(int, threads);
    QFETCH(int, clients);
    QFETCH(int, streams);
    QFETCH(qulonglong, complete);
    QFETCH(qulonglong, non2xx);
    QFETCH(qulonglong, total);
    QFETCH(qulonglong, data);
    QFETCH(double, seconds);
    QFETCH(double, requestsPerSecond);
    QFETCH(QList<double>, requestTimes);
    const ImportResult imported = importReports(name, fixture(name));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.applicationProtocol, protocol);
    QCOMPARE(report.threads, threads);
    QCOMPARE(report.concurrency, clients);
    QCOMPARE(report.streams.value_or(0), streams);
    // Only one file kept `h2load --version` above the report.
    QCOMPARE(report.version,
             protocol == QLatin1String("h2") ? QStringLiteral("1.52.0") : QString());
    QCOMPARE(r.complete, complete);
    QCOMPARE(r.failed, 0ULL);
    QCOMPARE(r.non2xx, non2xx);
    QCOMPARE(report.statusClasses.at(4), non2xx);
    QCOMPARE(report.requestCounts->failed, non2xx); // h2load counts 4xx as failed
    QCOMPARE(r.bytesTotal, total);
    QCOMPARE(r.bytesBody, data);
    QVERIFY(close(r.durationSeconds, seconds));
    QCOMPARE(r.reportedRequestsPerSecond, requestsPerSecond);
    QCOMPARE(r.total.minMs, requestTimes.at(0));
    QCOMPARE(r.total.maxMs, requestTimes.at(1));
    QCOMPARE(r.total.meanMs, requestTimes.at(2));
    QCOMPARE(r.total.sdMs, requestTimes.at(3));
    const QString streamsText =
        streams ? QStringLiteral("%1 streams per connection, ").arg(streams) : QString();
    QCOMPARE(report.description(),
             QStringLiteral("h2load%1: concurrency %2, %3%4 requests, %5 "
                            "requests/s")
                 .arg(report.version.isEmpty() ? QString() : QLatin1Char(' ') + report.version)
                 .arg(clients)
                 .arg(streamsText)
                 .arg(report.requests.value_or(0))
                 .arg(requestsPerSecond, 0, 'f', 2));
}

void TestImportH2load::refusals_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    const QByteArray report = fixture(QStringLiteral("h2load_h2c_not_found.txt"));
    const auto edited = [&](const char* from, const char* to) {
        QByteArray copy = report;
        return copy.replace(from, to);
    };
    QTest::newRow("cut after the requests line") << report.left(report.indexOf("status codes:"))
                                                 << 20 << "h2load report cut off after 'requests'";
    QTest::newRow("cut in the time table")
        << report.left(report.indexOf("time for connect:") + 20) << 24
        << "h2load report cut off after 'time for request'";
    QTest::newRow("cut before finishing") << report.left(report.indexOf("progress: 50%")) << 7
                                          << "h2load report cut off after 'Application protocol'";
    QTest::newRow("a rate lost its decimals")
        << edited("12110.40 req/s", "12110.4 req/s") << 19
        << "h2load report has a malformed 'req/s' value '12110.4'";
    QTest::newRow("a time without its unit")
        << edited("9.67ms", "9.67") << 24
        << "h2load report has a malformed 'time for request' value '9.67'";
    QTest::newRow("more timeouts than errors")
        << edited("0 errored, 0 timeout", "0 errored, 7 timeout") << 20
        << "h2load report has a malformed 'requests' value 'requests: 3000 total, 3000 "
           "started, 3000 done, 0 succeeded, 3000 failed, 0 errored, 7 timeout'";
    QTest::newRow("threads out of order")
        << edited("spawning thread #1:", "spawning thread #5:") << 5
        << "h2load report has a malformed 'spawning thread' value 'spawning thread #5: 2 total "
           "client(s). 1000 total requests'";
}

void TestImportH2load::refusals() {
    QFETCH(QByteArray, content);
    QFETCH(int, line);
    QFETCH(QString, message);
    const ImportResult imported = importReports(QStringLiteral("h2load.txt"), content);
    QVERIFY(!imported.ok());
    QCOMPARE(imported.error().toString(),
             QStringLiteral("h2load.txt:%1: %2").arg(line).arg(message));
}

QTEST_GUILESS_MAIN(TestImportH2load)
#include "tst_import_h2load.moc"
