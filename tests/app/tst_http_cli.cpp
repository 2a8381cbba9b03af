// loadscope-cli http as a user runs it: against real nginx, next to ab, and
// against servers with a known delay. The command runs in-process. Bad
// arguments, unreachable targets and the executable's exit statuses:
// tst_http_cli_exit_statuses.
#include "app/report/ab_report.h"
#include "cli_process.h"
#include "fixed_delay_server.h"
#include "local_peers.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <numeric>

using loadscope::testing::CliOutcome;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::integer;
using loadscope::testing::NginxPeer;
using loadscope::testing::runCli;
using loadscope::testing::runProgram;

namespace {

using Outcome = CliOutcome;
using namespace std::chrono_literals;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kInstrumented = true; // several times slower: times say nothing
#else
constexpr bool kInstrumented = false;
#endif

QString urlOf(const FixedDelayServer& server) {
    return QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
}

// The numbers of the report's "(Connect: 1, Receive: 2, ...)" line, in order.
QList<qint64> failureParts(const QString& report) {
    const auto line =
        QRegularExpression(QStringLiteral("\\n   \\(Connect: [^\\n]*\\)\\n")).match(report);
    QList<qint64> parts;
    auto numbers = QRegularExpression(QStringLiteral(": (\\d+)")).globalMatch(line.captured(0));
    while (numbers.hasNext())
        parts << numbers.next().captured(1).toLongLong();
    return parts;
}

qint64 abTotalTransferred(const QString& url, bool keepAlive) {
    QStringList arguments{QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("10"),
                          QStringLiteral("-n"), QStringLiteral("1000")};
    if (keepAlive)
        arguments << QStringLiteral("-k");
    const Outcome ab = runProgram(QStringLiteral("/usr/bin/ab"), arguments << url);
    const auto match = QRegularExpression(QStringLiteral("Total transferred:\\s+(\\d+) bytes"))
                           .match(QString::fromUtf8(ab.out));
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

} // namespace

class TestHttpCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
                 "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void matchesAbAgainstNginx_data() {
        QTest::addColumn<bool>("keepAlive");
        QTest::newRow("-k") << true;
        QTest::newRow("no keep-alive") << false;
    }
    void matchesAbAgainstNginx() {
        QFETCH(bool, keepAlive);
        NginxPeer nginx(4897);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        QStringList arguments{QStringLiteral("http"), QStringLiteral("-c"),
                              QStringLiteral("10"),   QStringLiteral("-n"),
                              QStringLiteral("1000"), QStringLiteral("--json"),
                              QStringLiteral("-")};
        if (keepAlive)
            arguments << QStringLiteral("-k");
        const Outcome ours = runCli(arguments << nginx.url());
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(ours.out).object();
        QCOMPARE(json.value(QStringLiteral("complete")).toInteger(), 1000);
        QCOMPARE(json.value(QStringLiteral("failed")).toInteger(), 0);
        QCOMPARE(json.value(QStringLiteral("bytes_body")).toInteger(), 4'897'000);
        QCOMPARE(json.value(QStringLiteral("keep_alive")).toInteger(), keepAlive ? 1000 : 0);
        QCOMPARE(json.value(QStringLiteral("document_length")).toInteger(), 4897);
        QVERIFY(json.value(QStringLiteral("server_software"))
                    .toString()
                    .startsWith(QStringLiteral("nginx/")));
        QCOMPARE(json.value(QStringLiteral("status_codes"))
                     .toObject()
                     .value(QStringLiteral("200"))
                     .toInteger(),
                 1000);
        // Same request bytes as ab, so nginx sends the same response bytes.
        const qint64 abTotal = abTotalTransferred(nginx.url(), keepAlive);
        QVERIFY(abTotal > 4'897'000);
        QCOMPARE(json.value(QStringLiteral("bytes_total")).toInteger(), abTotal);
    }

    void jsonHasEveryDocumentedKey() {
        NginxPeer nginx(100);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        const Outcome ours = runCli({QStringLiteral("http"), QStringLiteral("-k"),
                                     QStringLiteral("-n"), QStringLiteral("200"),
                                     QStringLiteral("--json"), QStringLiteral("-"), nginx.url()});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(ours.out).object();
        const QStringList keys{QStringLiteral("complete"),
                               QStringLiteral("failed"),
                               QStringLiteral("failed_connect"),
                               QStringLiteral("failed_receive"),
                               QStringLiteral("failed_length"),
                               QStringLiteral("failed_exceptions"),
                               QStringLiteral("timeouts"),
                               QStringLiteral("non_2xx"),
                               QStringLiteral("keep_alive"),
                               QStringLiteral("bytes_total"),
                               QStringLiteral("bytes_body"),
                               QStringLiteral("duration_s"),
                               QStringLiteral("requests_per_second"),
                               QStringLiteral("transfer_rate_kib_s"),
                               QStringLiteral("concurrency"),
                               QStringLiteral("threads"),
                               QStringLiteral("status_codes"),
                               QStringLiteral("server_software"),
                               QStringLiteral("document_length"),
                               QStringLiteral("latency_ms"),
                               QStringLiteral("connect_ms"),
                               QStringLiteral("waiting_ms")};
        for (const QString& key : keys)
            QVERIFY2(json.contains(key), qPrintable(key));
        const QStringList latencyKeys{
            QStringLiteral("min"),    QStringLiteral("mean"), QStringLiteral("sd"),
            QStringLiteral("p50"),    QStringLiteral("p66"),  QStringLiteral("p75"),
            QStringLiteral("p80"),    QStringLiteral("p90"),  QStringLiteral("p95"),
            QStringLiteral("p98"),    QStringLiteral("p99"),  QStringLiteral("p99_9"),
            QStringLiteral("p99_99"), QStringLiteral("max")};
        for (const char* object : {"latency_ms", "connect_ms", "waiting_ms"}) {
            const QJsonObject latency = json.value(QLatin1String(object)).toObject();
            for (const QString& key : latencyKeys)
                QVERIFY2(latency.contains(key),
                         qPrintable(QLatin1String(object) + QLatin1Char('.') + key));
        }
        const QJsonObject latency = json.value(QStringLiteral("latency_ms")).toObject();
        QVERIFY(latency.value(QStringLiteral("min")).toDouble() > 0);
        QVERIFY(latency.value(QStringLiteral("p50")).toDouble() <=
                latency.value(QStringLiteral("p99")).toDouble());
        QVERIFY(latency.value(QStringLiteral("p99")).toDouble() <=
                latency.value(QStringLiteral("max")).toDouble());
    }

    // Little's law: c connections to a server that answers each request D
    // after it arrived complete c / D successful requests a second, however
    // many other requests fail at once. A failure must not raise the rate.
    void requestsPerSecondIsLittlesLawOverSuccesses_data() {
        QTest::addColumn<uint>("failEvery");
        QTest::newRow("none fails") << 0u;
        QTest::newRow("every 4th fails fast") << 4u;
        QTest::newRow("every 2nd fails fast") << 2u;
    }
    void requestsPerSecondIsLittlesLawOverSuccesses() {
        if (kInstrumented)
            QSKIP("sanitizer builds are several times slower: rates say nothing");
        QFETCH(uint, failEvery);
        constexpr int kConcurrency = 4;
        constexpr int kRequests = 200;
        constexpr auto kDelay = 20ms;
        FixedDelayServer server(FixedDelayServer::Options{.delay = kDelay, .failEvery = failEvery});
        QVERIFY(server.isListening());
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                    QString::number(kConcurrency), QStringLiteral("-n"), QString::number(kRequests),
                    QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--json"),
                    QStringLiteral("-"), QStringLiteral("-q"), urlOf(server)});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        const qint64 failing = failEvery ? kRequests / failEvery : 0;
        QCOMPARE(integer(json, "complete"), kRequests);
        QCOMPARE(integer(json, "failed"), failing);
        QCOMPARE(integer(json, "failed_exceptions"), failing);
        QCOMPARE(server.failedOnPurpose(), uint64_t(failing));
        QTRY_COMPARE(server.answered(), uint64_t(kRequests - failing)); // counted after send
        const double rps = json.value(QStringLiteral("requests_per_second")).toDouble();
        const double littlesLaw = kConcurrency / std::chrono::duration<double>(kDelay).count();
        const QString figures =
            QStringLiteral("%1 req/s, Little's law says %2").arg(rps).arg(littlesLaw);
        // c connections each waiting D for a success cannot make more than
        // c / D of them a second: counting the fast failures would.
        QVERIFY2(rps <= littlesLaw * 1.05, qPrintable(figures));
        // Without failures nothing else takes the connections' time: the
        // rate is c over the cycle the server saw on each connection (the
        // delay, the kernel's lateness on a busy machine and the client's
        // turnaround), less only the first request's connect. (A failure
        // costs its connection a reconnect as well, so the rate with failures
        // is below that by more than the loopback floor.)
        if (failing == 0) {
            const double serverSeen = kConcurrency / (server.meanCycleNs() / 1e9);
            QVERIFY2(rps >= serverSeen * 0.95,
                     qPrintable(figures +
                                QStringLiteral(", the server's cycles say %1").arg(serverSeen)));
        }
    }

    // Every request outlives the response timeout: each is a Timeout, and the
    // parts of "Failed requests" add up to it.
    void failurePartsAddUpToFailedRequests() {
        FixedDelayServer server(FixedDelayServer::Options{.delay = 10s});
        QVERIFY(server.isListening());
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-c"), QStringLiteral("2"),
                    QStringLiteral("-n"), QStringLiteral("4"), QStringLiteral("-s"),
                    QStringLiteral("0.2"), QStringLiteral("-q"), urlOf(server)});
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        QVERIFY2(text.contains(QStringLiteral("Complete requests:      4\n")),
                 ours.out.constData());
        QVERIFY2(text.contains(QStringLiteral("Failed requests:        4\n")),
                 ours.out.constData());
        const QList<qint64> parts = failureParts(text);
        QVERIFY2(!parts.isEmpty(), ours.out.constData());
        QCOMPARE(std::accumulate(parts.begin(), parts.end(), qint64(0)), qint64(4));
        QVERIFY(text.contains(QStringLiteral("Timeout: 4)")));
    }

    // As ab 2.3: a failed connect is a failed request, never a complete one.
    void failedConnectsAreNotCompleteRequests() {
        loadscope::engine::RunResult r;
        r.complete = 10; // as -n 10 counts them: failed connects included
        r.failed = 4;
        r.errors[size_t(loadscope::engine::ErrorClass::Connect)] = 3;
        r.errors[size_t(loadscope::engine::ErrorClass::Receive)] = 1;
        r.durationSeconds = 1;
        r.concurrency = 1;
        const QString text = loadscope::app::formatAbReport(r, {});
        QVERIFY2(text.contains(QStringLiteral("Complete requests:      7\n")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Failed requests:        4\n")));
        const QList<qint64> parts = failureParts(text);
        QCOMPARE(std::accumulate(parts.begin(), parts.end(), qint64(0)), qint64(4));
        // 6 successful responses in one second.
        QVERIFY2(text.contains(QStringLiteral("Requests per second:    6.00 [#/sec]")),
                 qPrintable(text));
    }

    // --http1.0 sends ab's request line and fields, and the report says so.
    void http10SendsWhatAbSends() {
        FixedDelayServer server(FixedDelayServer::Options{.delay = 1ms});
        QVERIFY(server.isListening());
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("run.json"));
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("--http1.0"), QStringLiteral("-n"),
                    QStringLiteral("5"), QStringLiteral("--json"), json, urlOf(server)});
        QCOMPARE(ours.exitCode, 0);
        QVERIFY2(ours.out.contains("HTTP version sent:      HTTP/1.0"), ours.out.constData());
        // ab 2.3's request without -k: the server closes after each answer.
        const QByteArray request =
            "GET / HTTP/1.0\r\nHost: 127.0.0.1:" + QByteArray::number(server.port()) +
            "\r\nUser-Agent: Loadscope\r\nAccept: */*\r\n\r\n";
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject result = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(integer(result, "complete"), 5);
        QCOMPARE(integer(result, "failed"), 0);
        QCOMPARE(integer(result, "bytes_sent"), 5 * request.size());
        const Outcome plain = runCli({QStringLiteral("http"), QStringLiteral("-n"),
                                      QStringLiteral("1"), QStringLiteral("-q"), urlOf(server)});
        QVERIFY2(plain.out.contains("HTTP version sent:      HTTP/1.1"), plain.out.constData());
    }

    // ab -l ("accept variable document length") prints "Variable" for the
    // document length, as the report does; the JSON's document_length is
    // -1 then (README), and no response is a Length failure.
    void variableLengthIsAbsVariable() {
        NginxPeer nginx(4897);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("run.json"));
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-l"), QStringLiteral("-n"),
                    QStringLiteral("20"), QStringLiteral("--json"), json, nginx.url()});
        QCOMPARE(ours.exitCode, 0);
        const Outcome ab =
            runProgram(QStringLiteral("/usr/bin/ab"), {QStringLiteral("-l"), QStringLiteral("-n"),
                                                       QStringLiteral("20"), nginx.url()});
        QCOMPARE(ab.exitCode, 0);
        const QRegularExpression line(QStringLiteral("\nDocument Length:[^\n]*"));
        const QString abLine = line.match(QString::fromUtf8(ab.out)).captured(0);
        QCOMPARE(abLine, QStringLiteral("\nDocument Length:        Variable"));
        QCOMPARE(line.match(QString::fromUtf8(ours.out)).captured(0), abLine);
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject result = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(integer(result, "document_length"), -1);
        QCOMPARE(integer(result, "failed_length"), 0);
        QCOMPARE(integer(result, "bytes_body"), 20 * 4897);
    }

    void reportFollowsAbsLayout() {
        NginxPeer nginx(4897);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("run.csv"));
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                    QStringLiteral("4"), QStringLiteral("-n"), QStringLiteral("400"),
                    QStringLiteral("--csv"), csv, nginx.url()});
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        const QStringList sections{
            QStringLiteral("Server Software:"),
            QStringLiteral("Server Hostname:"),
            QStringLiteral("Server Port:"),
            QStringLiteral("Document Path:"),
            QStringLiteral("Document Length:        4897 bytes"),
            QStringLiteral("Concurrency Level:      4"),
            QStringLiteral("Time taken for tests:"),
            QStringLiteral("Complete requests:      400"),
            QStringLiteral("Failed requests:        0"),
            QStringLiteral("Keep-Alive requests:    400"),
            QStringLiteral("Total transferred:"),
            QStringLiteral("HTML transferred:       1958800 bytes"),
            QStringLiteral("Requests per second:"),
            QStringLiteral("[ms] (mean)"),
            QStringLiteral("(mean, across all concurrent requests)"),
            QStringLiteral("Transfer rate:"),
            QStringLiteral("Connection Times (ms)"),
            QStringLiteral("Connect:"),
            QStringLiteral("Processing:"),
            QStringLiteral("Waiting:"),
            QStringLiteral("Total:"),
            QStringLiteral("Percentage of the requests served within a certain time (ms)"),
            QStringLiteral("50%"),
            QStringLiteral("99.9%"),
            QStringLiteral("99.99%"),
            QStringLiteral("100%")};
        qsizetype at = 0;
        for (const QString& section : sections) {
            const qsizetype found = text.indexOf(section, at);
            QVERIFY2(found >= 0, qPrintable(QStringLiteral("missing or out of order: ") + section));
            at = found;
        }
        QVERIFY(ours.err.contains("Finished 400 requests"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QVERIFY(lines.size() >= 2);
        const QList<QByteArray> header = lines.at(0).trimmed().split(',');
        const QList<QByteArray> row = lines.at(1).trimmed().split(',');
        QCOMPARE(header.size(), row.size());
        QCOMPARE(row.at(header.indexOf("complete")), QByteArray("400"));
        QCOMPARE(row.at(header.indexOf("bytes_body")), QByteArray("1958800"));
    }
};

QTEST_GUILESS_MAIN(TestHttpCli)
#include "tst_http_cli.moc"
