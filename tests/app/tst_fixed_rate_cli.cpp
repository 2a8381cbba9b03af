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

// What every fixed-rate JSON says, whatever the command.
void checkFixedRateJson(const QJsonObject& json, double rate) {
    QCOMPARE(json.value(QStringLiteral("offered_rate")).toDouble(), rate);
    QVERIFY(json.contains(QStringLiteral("achieved_rate")));
    QVERIFY(json.contains(QStringLiteral("max_backlog")));
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
        // The latency of a 1 ms server is above 1 ms either way.
        QVERIFY(ours.json()
                    .value(QStringLiteral("latency_uncorrected_ms"))
                    .toObject()
                    .value(QStringLiteral("min"))
                    .toDouble() >= 1.0);
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
