// -R / --rate and --arrival on the load commands: the schedule sets the
// pace (a counted run lasts at least its n-th intended start, the server
// counts every request), the report shows both latency distributions, the
// JSON both latency objects with one set of keys, and bad input is one line.
#include "app/servers/echo_server.h"
#include "cli_process.h"
#include "fixed_delay_server.h"
#include "local_peers.h"

#include <QJsonObject>
#include <QTest>
#include <chrono>
#include <cmath>

using loadscope::app::EchoServer;
using loadscope::app::EchoServerConfig;
using loadscope::testing::CliOutcome;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::MemcachedPeer;
using loadscope::testing::runCli;
using namespace std::chrono_literals;

namespace {

QString address(uint16_t port) {
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

// 300 requests at 1000/s: the 300th intended start is 0.299 s after the first.
constexpr int kRequests = 300;
constexpr double kScheduleSeconds = 0.299;

double number(const QJsonObject& json, const char* key) {
    return json.value(QLatin1String(key)).toDouble();
}

// What every fixed-rate JSON says, whatever the command, of a server that keeps up. The
// rate achieved: never above the schedule's (300 requests take at least 0.299 s), and near
// the rate asked (a loaded machine's late wake-ups take some of it). The largest backlog: the
// k-th request due and not sent had been due (k - 1) / rate when it was counted, so one of
// the requests waited that long from its intended start; no figure the latency denies.
void checkFixedRateJson(const QJsonObject& json, double rate) {
    QCOMPARE(json.value(QStringLiteral("offered_rate")).toDouble(), rate);
    const double achieved = number(json, "achieved_rate");
    QVERIFY2(achieved > rate * 0.8 && achieved <= kRequests / kScheduleSeconds,
             qPrintable(QString::number(achieved)));
    QVERIFY(json.value(QStringLiteral("max_backlog")).isDouble());
    const double backlog = number(json, "max_backlog");
    const double longestMs =
        json.value(QStringLiteral("latency_ms")).toObject().value(QStringLiteral("max")).toDouble();
    QVERIFY2(backlog >= 0 && backlog <= 1 + rate * longestMs / 1000 + 1,
             qPrintable(QStringLiteral("largest backlog %1, longest latency %2 ms")
                            .arg(backlog)
                            .arg(longestMs)));
    QVERIFY(json.value(QStringLiteral("client_saturated")).isBool());
    QCOMPARE(json.value(QStringLiteral("complete")).toInteger(), kRequests);
    QVERIFY2(json.value(QStringLiteral("duration_s")).toDouble() >= kScheduleSeconds,
             qPrintable(QString::number(json.value(QStringLiteral("duration_s")).toDouble())));
    const QJsonObject corrected = json.value(QStringLiteral("latency_ms")).toObject();
    const QJsonObject uncorrected = json.value(QStringLiteral("latency_uncorrected_ms")).toObject();
    QVERIFY(!corrected.isEmpty());
    QCOMPARE(uncorrected.keys(), corrected.keys());
    // From the intended start a request is never quicker than from its send.
    for (const char* key : {"p50", "max"})
        QVERIFY2(corrected.value(QLatin1String(key)).toDouble() >=
                     uncorrected.value(QLatin1String(key)).toDouble(),
                 key);
}

} // namespace

class TestFixedRateCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void httpKeepsTheScheduleAndReportsBothLatencies() {
        FixedDelayServer server({1ms, 100, 0, 0});
        const CliOutcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                    QStringLiteral("4"), QStringLiteral("-R"), QStringLiteral("1000"),
                    QStringLiteral("-n"), QString::number(kRequests), QStringLiteral("--json"),
                    QStringLiteral("-"), QStringLiteral("http://%1/").arg(address(server.port()))});
        QCOMPARE(ours.exitCode, 0);
        checkFixedRateJson(ours.json(), 1000);
        QTRY_COMPARE(server.answered(), uint64_t(kRequests)); // counted after its send returns
        // The server's view of the run: the rate it was sent at, from the first request's
        // arrival to the last one's and that one's delay, is the rate achieved (within 5 %:
        // the client's clock starts before its first send, a sanitizer's slower one more so).
        const double serverRate =
            double(server.answered()) / (double(server.arrivalSpanNs()) / 1e9 + 0.001);
        const double achieved = number(ours.json(), "achieved_rate");
        QVERIFY2(std::abs(achieved - serverRate) < 0.05 * serverRate,
                 qPrintable(QStringLiteral("achieved %1 requests/s, the server's %2")
                                .arg(achieved)
                                .arg(serverRate)));
        // The latency of a 1 ms server is above 1 ms either way.
        QVERIFY(ours.json()
                    .value(QStringLiteral("latency_uncorrected_ms"))
                    .toObject()
                    .value(QStringLiteral("min"))
                    .toDouble() >= 1.0);
    }

    // Two connections to a server that answers each request 10 ms after it came: 200
    // requests/s at most, offered 1000/s for 0.5 s. Each connection sends its next request
    // when the answer to its last one is back, so the requests due and not sent grow all
    // run long, and are most at its last dispatch: about 500 due (from 488, the due count one
    // cycle and 2 ms before the end, to 501) less the requests sent then, which the server
    // counted (it answered every one but the last of each connection at the most).
    void aServerThatCannotKeepUpLeavesAKnownBacklog() {
        constexpr int kConnections = 2;
        constexpr double kRate = 1000;
        constexpr double kSeconds = 0.5;
        constexpr double kDelaySeconds = 0.010;
        FixedDelayServer server({10ms, 100, 0, 0});
        const CliOutcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                    QString::number(kConnections), QStringLiteral("-R"), QString::number(kRate),
                    QStringLiteral("-t"), QString::number(kSeconds), QStringLiteral("--json"),
                    QStringLiteral("-"), QStringLiteral("http://%1/").arg(address(server.port()))});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        QCOMPARE(number(json, "offered_rate"), kRate);
        const double answered = double(server.answered());
        const double backlog = number(json, "max_backlog");
        // Due at the last dispatch: from one cycle (and 2 ms of lateness) before the end to
        // the end. Taken then: the requests sent (from what the server answered to one more a
        // connection), less the last one of each connection, sent after it.
        const double fewest = kRate * (kSeconds - kDelaySeconds - 0.002) - answered - kConnections;
        const double most = kRate * kSeconds + 1 - (answered - kConnections);
        QVERIFY2(backlog >= fewest && backlog <= most,
                 qPrintable(QStringLiteral("largest backlog %1, not in [%2, %3]")
                                .arg(backlog)
                                .arg(fewest)
                                .arg(most)));
        // The server's own view: from the first request's arrival to the last one's, and
        // that one's delay (within 5 %, as above).
        const double serverSeconds = double(server.arrivalSpanNs()) / 1e9 + kDelaySeconds;
        const double serverRate = answered / serverSeconds;
        const double achieved = number(json, "achieved_rate");
        QVERIFY2(std::abs(achieved - serverRate) < 0.05 * serverRate,
                 qPrintable(QStringLiteral("achieved %1 requests/s, the server's %2")
                                .arg(achieved)
                                .arg(serverRate)));
        // Never above the server's capacity (each connection waits 10 ms an answer), so never
        // the rate offered.
        QVERIFY2(achieved <= kConnections / kDelaySeconds, qPrintable(QString::number(achieved)));
    }

    void theReportShowsBothDistributions_data() {
        QTest::addColumn<QStringList>("rate");
        QTest::newRow("closed loop") << QStringList{};
        QTest::newRow("-R") << QStringList{QStringLiteral("-R"), QStringLiteral("2000")};
        QTest::newRow("--rate, poisson")
            << QStringList{QStringLiteral("--rate"), QStringLiteral("2000"),
                           QStringLiteral("--arrival"), QStringLiteral("poisson")};
    }
    void theReportShowsBothDistributions() {
        QFETCH(QStringList, rate);
        FixedDelayServer server({0ns, 100, 0, 0});
        const CliOutcome ours =
            runCli(QStringList{QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                               QStringLiteral("2"), QStringLiteral("-n"), QStringLiteral("200"),
                               QStringLiteral("-q")}
                   << rate << QStringLiteral("http://%1/").arg(address(server.port())));
        QCOMPARE(ours.exitCode, 0);
        const QString report = QString::fromUtf8(ours.out);
        const bool fixedRate = !rate.isEmpty();
        for (const char* line :
             {"Offered rate:           2000.00 requests/s", "Achieved rate:", "Largest backlog:",
              "Percentage of the requests served within a certain time (ms), uncorrected",
              "Latency Distribution (HdrHistogram - Recorded Latency)",
              "Latency Distribution (HdrHistogram - Uncorrected Latency",
              "Detailed Percentile spectrum:", "#[Mean    ="})
            QVERIFY2(report.contains(QLatin1String(line)) == fixedRate, line);
        // ab's own report comes first, unchanged.
        QVERIFY(report.contains(QStringLiteral("Requests per second:")));
    }

    void tcpRrTakesARate() {
        EchoServerConfig config;
        config.threads = 1;
        EchoServer echo(config);
        QVERIFY(echo.start());
        const CliOutcome ours =
            runCli({QStringLiteral("tcp-rr"), QStringLiteral("-c"), QStringLiteral("2"),
                    QStringLiteral("-R"), QStringLiteral("1000"), QStringLiteral("-n"),
                    QString::number(kRequests), QStringLiteral("--json"), QStringLiteral("-"),
                    address(echo.port())});
        QCOMPARE(ours.exitCode, 0);
        checkFixedRateJson(ours.json(), 1000);
    }

    // --rate is the total over every connection (-c x -t), not memtier's per-connection one.
    void memcacheTakesATotalRate() {
        MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        const CliOutcome ours = runCli(
            {QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("3"),
             QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
             QString::number(kRequests / 3), QStringLiteral("--rate"), QStringLiteral("1000"),
             QStringLiteral("--json"), QStringLiteral("-"), address(memcached.port())});
        QCOMPARE(ours.exitCode, 0);
        checkFixedRateJson(ours.json(), 1000);
    }

    void badRatesGiveOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString url = QStringLiteral("http://127.0.0.1:9/");
        const QString hostPort = QStringLiteral("127.0.0.1:9");
        const auto http = [&](std::initializer_list<const char*> options) {
            QStringList list{QStringLiteral("http")};
            for (const char* o : options)
                list << QLatin1String(o);
            return list << url;
        };
        QTest::newRow("-R 0") << http({"-R", "0"})
                              << QStringLiteral("-R wants requests/s from 0.001 to 100000000");
        QTest::newRow("-R negative") << http({"-R", "-5"}) << QStringLiteral("-R");
        QTest::newRow("-R not a number") << http({"-R", "lots"}) << QStringLiteral("'lots'");
        QTest::newRow("-R infinite") << http({"-R", "inf"}) << QStringLiteral("'inf'");
        QTest::newRow("unknown arrival")
            << http({"-R", "10", "--arrival", "bursty"}) << QStringLiteral("constant or poisson");
        QTest::newRow("arrival without a rate")
            << http({"--arrival", "poisson"}) << QStringLiteral("needs a rate");
        QTest::newRow("timer slack over 1 ms") << http({"-R", "10", "--timer-slack", "1001"})
                                               << QStringLiteral("from 0 to 1000, not '1001'");
        QTest::newRow("timer slack negative")
            << http({"-R", "10", "--timer-slack", "-1"}) << QStringLiteral("--timer-slack wants");
        QTest::newRow("timer slack without a rate")
            << http({"--timer-slack", "500"}) << QStringLiteral("--timer-slack needs a rate");
        QTest::newRow("memcache --rate 0")
            << QStringList{QStringLiteral("memcache"), QStringLiteral("--rate"),
                           QStringLiteral("0"), hostPort}
            << QStringLiteral("--rate wants");
        QTest::newRow("tcp-rr -R nan")
            << QStringList{QStringLiteral("tcp-rr"), QStringLiteral("-R"), QStringLiteral("nan"),
                           hostPort}
            << QStringLiteral("-R wants");
        QTest::newRow("tcp-stream --rate")
            << QStringList{QStringLiteral("tcp-stream"), QStringLiteral("--rate"),
                           QStringLiteral("100"), hostPort}
            << QStringLiteral("stream test has no requests to send at a rate");
    }
    void badRatesGiveOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliOutcome outcome = runCli(arguments);
        const QString refusal = outcome.refusalProblem(message);
        QVERIFY2(refusal.isEmpty(), qPrintable(refusal));
        QVERIFY(outcome.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFixedRateCli)
#include "tst_fixed_rate_cli.moc"
