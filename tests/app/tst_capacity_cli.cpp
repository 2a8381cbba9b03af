// --find-capacity on the load commands: http finds the capacity of a server
// whose capacity is known and says it in the report, --json ("capacity":
// rate, objective, steps) and --csv (one row per step); an objective no rate
// meets is reported so with the lowest step's figures; too few connections
// are called the client's limit, not the server's; tcp-rr and memcache search
// too; bad objectives and options that fix what the search chooses are
// refused in one line.
#include "app/servers/echo_server.h"
#include "cli_process.h"
#include "fixed_delay_server.h"
#include "golden_outputs.h"
#include "local_peers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <map>

using loadscope::testing::CliOutcome;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::jsonAt;
using loadscope::testing::runCli;
using namespace std::chrono_literals;

namespace {

QString url(const FixedDelayServer& server) {
    return QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
}

// Short steps: these searches take a few seconds each.
const QStringList kQuick{QStringLiteral("--threads"),  QStringLiteral("1"),
                         QStringLiteral("--min-step"), QStringLiteral("0.25"),
                         QStringLiteral("--warmup"),   QStringLiteral("0.1")};

QJsonArray stepsOf(const QJsonObject& json) {
    return jsonAt(json, QStringLiteral("capacity.steps")).toArray();
}

// The summary and each step's rate and verdict: what a failed check shows.
QString searchText(const QJsonObject& json) {
    QString text = jsonAt(json, QStringLiteral("capacity.summary")).toString();
    for (const QJsonValue& value : stepsOf(json)) {
        const QJsonObject step = value.toObject();
        text += QStringLiteral("\n  %1 req/s: %2 (%3)")
                    .arg(step.value(QStringLiteral("offered_rate")).toDouble(), 0, 'f', 1)
                    .arg(step.value(QStringLiteral("verdict")).toString(),
                         step.value(QStringLiteral("why")).toString());
    }
    return text;
}

} // namespace

class TestCapacityCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void httpFindsAKnownCapacity() {
        // 8 workers of D = 4 ms: 2000 req/s, the objective p99 <= 4 D. A D of
        // several milliseconds keeps what a busy machine adds to a request's
        // p99 (its scheduling: up to 8 ms seen at a load average of 4 on two
        // CPUs) within 3 D, so that the truth is the server's.
        FixedDelayServer::Options options;
        options.delay = 4ms;
        options.workers = 8;
        FixedDelayServer server(options);
        QVERIFY(server.isListening());
        const CliOutcome run =
            runCli(QStringList{QStringLiteral("http"), QStringLiteral("--find-capacity"),
                               QStringLiteral("--slo"), QStringLiteral("p99=16ms"),
                               QStringLiteral("-c"), QStringLiteral("32"), QStringLiteral("-k"),
                               QStringLiteral("--json"), QStringLiteral("-")}
                   << kQuick << url(server));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = run.json();
        // Never above what the server can take; how near below it a busy
        // machine lets the search come is tst_capacity_accuracy's to hold.
        const double truth = server.capacityWithin(16ms);
        QCOMPARE(truth, 2000.0);
        const double rate = jsonAt(json, QStringLiteral("capacity.rate")).toDouble();
        QVERIFY2(rate > 0 && rate <= 1.02 * truth, qPrintable(searchText(json)));
        const QString stopped = jsonAt(json, QStringLiteral("capacity.stopped")).toString();
        QVERIFY2(stopped == u"precision" || stopped == u"step-budget",
                 qPrintable(searchText(json)));
        if (stopped == u"precision")
            QVERIFY(jsonAt(json, QStringLiteral("capacity.bracket_percent")).toDouble() <= 5);
        QCOMPARE(jsonAt(json, QStringLiteral("capacity.objective.text")).toString(),
                 QStringLiteral("p99 ≤ 16 ms"));
        QCOMPARE(jsonAt(json, QStringLiteral("capacity.objective.bound_ms")).toDouble(), 16.0);
        QCOMPARE(jsonAt(json, QStringLiteral("capacity.connections")).toInt(), 32);
        QCOMPARE(json.value(QStringLiteral("url")).toString(), url(server));
        // Every step is a fixed-rate result; the answer is the highest met.
        const QJsonArray steps = stepsOf(json);
        QVERIFY(steps.size() >= 3);
        double highestMet = 0;
        uint64_t requests = 0;
        for (qsizetype i = 0; i < steps.size(); ++i) {
            const QJsonObject step = steps[i].toObject();
            QCOMPARE(step.value(QStringLiteral("step")).toInt(), int(i) + 1);
            const QJsonObject result = step.value(QStringLiteral("result")).toObject();
            QCOMPARE(result.value(QStringLiteral("offered_rate")).toDouble(),
                     step.value(QStringLiteral("offered_rate")).toDouble());
            requests += uint64_t(result.value(QStringLiteral("complete")).toInteger());
            if (step.value(QStringLiteral("verdict")).toString() == u"met" &&
                step.value(QStringLiteral("counted")).toBool())
                highestMet =
                    std::max(highestMet, step.value(QStringLiteral("offered_rate")).toDouble());
        }
        QCOMPARE(rate, highestMet);
        // The server answered every request the steps counted (and the
        // probe's and warm-ups' besides).
        QVERIFY(server.answered() >= requests);
    }

    void reportAndCsvCarryTheSteps() {
        FixedDelayServer::Options options;
        options.delay = 4ms;
        options.workers = 8;
        FixedDelayServer server(options);
        QVERIFY(server.isListening());
        const QString csvPath = QDir::temp().filePath(
            QStringLiteral("tst_capacity_cli_%1.csv").arg(QCoreApplication::applicationPid()));
        const CliOutcome run =
            runCli(QStringList{QStringLiteral("http"), QStringLiteral("--find-capacity"),
                               QStringLiteral("--slo"), QStringLiteral("p99=16ms"),
                               QStringLiteral("--capacity-precision"), QStringLiteral("20"),
                               QStringLiteral("-c"), QStringLiteral("32"), QStringLiteral("-k"),
                               QStringLiteral("--csv"), csvPath}
                   << kQuick << url(server));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString report = QString::fromUtf8(run.out);
        QVERIFY2(report.contains(QStringLiteral("Capacity at p99 ≤ 16 ms: ")), run.out.constData());
        QVERIFY(report.contains(QStringLiteral("Step    Offered/s")));
        QFile file(csvPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        // Read as CSV: a noisy step's note holds commas, in quotes.
        std::map<int, std::map<QString, QString>> rows; // row -> column -> cell
        for (const loadscope::testing::golden::Field& field :
             loadscope::testing::golden::flattenCsv(file.readAll()))
            if (field.path.startsWith(QLatin1String("row")))
                rows[field.path.section(QLatin1Char('.'), 0, 0).mid(3).toInt()][field.name] =
                    field.value;
        file.remove();
        QVERIFY(rows.size() >= 2);
        for (const auto& [row, cells] : rows) {
            QVERIFY2(cells.count(QStringLiteral("capacity_step")) &&
                         cells.count(QStringLiteral("offered_rate")),
                     "the CSV has capacity_step and offered_rate");
            QCOMPARE(cells.at(QStringLiteral("capacity_step")).toInt(), row);
            QVERIFY(cells.at(QStringLiteral("offered_rate")).toDouble() > 0);
        }
    }

    void anObjectiveBelowTheUnloadedLatencyMeetsNoRate() {
        // Every request takes 25 ms however few come (no worker limit): p99
        // <= 10 ms is out of reach, and the lowest step says by how much. Two
        // connections offer at most 80 req/s, fewer requests in a step than
        // the engine needs to judge whether the client kept its schedule: what
        // other load on the machine does to the client cannot decide it.
        FixedDelayServer::Options options;
        options.delay = 25ms;
        FixedDelayServer server(options);
        QVERIFY(server.isListening());
        const QString jsonPath = QDir::temp().filePath(
            QStringLiteral("tst_capacity_cli_%1.json").arg(QCoreApplication::applicationPid()));
        const CliOutcome run = runCli(
            QStringList{QStringLiteral("http"), QStringLiteral("--find-capacity"),
                        QStringLiteral("--slo"), QStringLiteral("p99=10ms"), QStringLiteral("-c"),
                        QStringLiteral("2"), QStringLiteral("-k"), QStringLiteral("--max-step"),
                        QStringLiteral("1"), QStringLiteral("--json"), jsonPath}
            << kQuick << url(server));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile file(jsonPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
        file.remove();
        QVERIFY2(jsonAt(json, QStringLiteral("capacity.stopped")).toString() == u"no-rate-meets",
                 qPrintable(searchText(json)));
        QVERIFY(jsonAt(json, QStringLiteral("capacity.rate")).isNull());
        // The lowest step's figure (its last attempt, which counted): never
        // below the server's 25 ms.
        double lowestRate = 1e9;
        double lowestP99 = 0;
        for (const QJsonValue& value : stepsOf(json)) {
            const QJsonObject step = value.toObject();
            if (step.value(QStringLiteral("offered_rate")).toDouble() <= lowestRate) {
                lowestRate = step.value(QStringLiteral("offered_rate")).toDouble();
                lowestP99 = step.value(QStringLiteral("latency_at_objective_ms")).toDouble();
            }
        }
        QVERIFY2(lowestP99 >= 25.0, qPrintable(QString::number(lowestP99)));
        const QString report = QString::fromUtf8(run.out);
        const QString expected =
            QStringLiteral("Capacity at p99 ≤ 10 ms: no rate meets it: at %1 req/s (the lowest "
                           "step) p99 %2 ms > 10 ms")
                .arg(lowestRate, 0, 'f',
                     lowestRate >= 100  ? 0
                     : lowestRate >= 10 ? 1
                                        : 3)
                .arg(lowestP99, 0, 'f',
                     lowestP99 >= 100  ? 0
                     : lowestP99 >= 10 ? 1
                                       : 2);
        QVERIFY2(report.contains(expected), qPrintable(report + QStringLiteral("\n") + expected));
    }

    void tooFewConnectionsAreTheClientsLimit() {
        // 2 connections at 20 ms carry 100 req/s; the server takes any rate
        // (no worker limit). Steps of a second at most hold fewer requests
        // than the engine needs to judge whether the client kept its
        // schedule: the connections, not other load on the machine, decide.
        FixedDelayServer::Options options;
        options.delay = 20ms;
        FixedDelayServer server(options);
        QVERIFY(server.isListening());
        const CliOutcome run = runCli(
            QStringList{QStringLiteral("http"), QStringLiteral("--find-capacity"),
                        QStringLiteral("--slo"), QStringLiteral("p99=100ms"), QStringLiteral("-c"),
                        QStringLiteral("2"), QStringLiteral("-k"), QStringLiteral("--max-step"),
                        QStringLiteral("1"), QStringLiteral("--json"), QStringLiteral("-")}
            << kQuick << url(server));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = run.json();
        QVERIFY2(jsonAt(json, QStringLiteral("capacity.stopped")).toString() == u"client-limited",
                 qPrintable(searchText(json)));
        QVERIFY(jsonAt(json, QStringLiteral("capacity.client_limited")).toBool());
        QVERIFY2(jsonAt(json, QStringLiteral("capacity.summary"))
                     .toString()
                     .contains(QStringLiteral("all 2 connections were busy")),
                 qPrintable(jsonAt(json, QStringLiteral("capacity.summary")).toString()));
        // Where it stopped the connections could carry no more: at or above
        // 2 / 20 ms.
        const QJsonArray steps = stepsOf(json);
        double limitedAt = 0;
        for (const QJsonValue& value : steps)
            if (value.toObject()
                    .value(QStringLiteral("why"))
                    .toString()
                    .contains(QStringLiteral("connections were busy")))
                limitedAt = value.toObject().value(QStringLiteral("offered_rate")).toDouble();
        QVERIFY2(limitedAt >= 0.9 * 2 / 0.020, qPrintable(QString::number(limitedAt)));
        QVERIFY(run.err.contains("The client, not the server, was the limit"));
    }

    void tcpRrAndMemcacheSearchToo() {
        loadscope::app::EchoServerConfig config;
        loadscope::app::EchoServer echo(config);
        QVERIFY(echo.start());
        const QStringList bounded{QStringLiteral("--max-steps"), QStringLiteral("3"),
                                  QStringLiteral("--max-step"),  QStringLiteral("0.3"),
                                  QStringLiteral("--json"),      QStringLiteral("-")};
        const CliOutcome rr =
            runCli(QStringList{QStringLiteral("tcp-rr"), QStringLiteral("--find-capacity"),
                               QStringLiteral("--slo"), QStringLiteral("p90=50ms"),
                               QStringLiteral("-c"), QStringLiteral("4")}
                   << kQuick << bounded << loadscope::testing::address(echo.port()));
        echo.stop();
        QVERIFY2(rr.exitCode == 0, rr.err.constData());
        QVERIFY(!stepsOf(rr.json()).isEmpty() && stepsOf(rr.json()).size() <= 3);
        QVERIFY(stepsOf(rr.json())[0]
                    .toObject()
                    .value(QStringLiteral("result"))
                    .toObject()
                    .contains(QStringLiteral("transactions_per_second")));

        loadscope::testing::MemcachedPeer memcached;
        if (!memcached.isRunning())
            QSKIP(qPrintable(memcached.error()));
        const CliOutcome mc = runCli(
            QStringList{QStringLiteral("memcache"), QStringLiteral("--find-capacity"),
                        QStringLiteral("--slo"), QStringLiteral("p90=50ms"), QStringLiteral("-c"),
                        QStringLiteral("4"), QStringLiteral("-t"), QStringLiteral("1")}
            << QStringList{QStringLiteral("--min-step"), QStringLiteral("0.25"),
                           QStringLiteral("--warmup"), QStringLiteral("0.1")}
            << bounded << loadscope::testing::address(memcached.port()));
        QVERIFY2(mc.exitCode == 0, mc.err.constData());
        QVERIFY(!stepsOf(mc.json()).isEmpty() && stepsOf(mc.json()).size() <= 3);
        QCOMPARE(jsonAt(mc.json(), QStringLiteral("capacity.objective.text")).toString(),
                 QStringLiteral("p90 ≤ 50 ms"));
    }

    void badObjectivesAndClashingOptionsAreRefused_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString target = QStringLiteral("http://127.0.0.1:9/");
        const QString find = QStringLiteral("--find-capacity");
        const QString slo = QStringLiteral("--slo");
        QTest::newRow("p101") << QStringList{QStringLiteral("http"), find, slo,
                                             QStringLiteral("p101=5ms"), target}
                              << QStringLiteral("--slo: 'p101=5ms': the objective's percentile "
                                                "must be from p50 to p99.99, not p101");
        QTest::newRow("negative bound")
            << QStringList{QStringLiteral("http"), find, slo, QStringLiteral("p99=-5ms"), target}
            << QStringLiteral("latency bound must be above 0 ms");
        QTest::newRow("zero bound")
            << QStringList{QStringLiteral("http"), find, slo, QStringLiteral("p99=0"), target}
            << QStringLiteral("latency bound must be above 0 ms");
        QTest::newRow("not an objective")
            << QStringList{QStringLiteral("http"), find, slo, QStringLiteral("fast"), target}
            << QStringLiteral("'fast' is not an objective");
        QTest::newRow("failed share")
            << QStringList{QStringLiteral("http"),
                           find,
                           slo,
                           QStringLiteral("p99=5ms"),
                           QStringLiteral("--max-failed"),
                           QStringLiteral("200%"),
                           target}
            << QStringLiteral("--max-failed wants a percentage from 0 to 100, not '200%'");
        QTest::newRow("slo alone")
            << QStringList{QStringLiteral("http"), slo, QStringLiteral("p99=5ms"), target}
            << QStringLiteral("--slo is an option of --find-capacity");
        QTest::newRow("no slo") << QStringList{QStringLiteral("http"), find, target}
                                << QStringLiteral("--find-capacity needs its objective");
        QTest::newRow("with -n") << QStringList{QStringLiteral("http"),
                                                find,
                                                slo,
                                                QStringLiteral("p99=5ms"),
                                                QStringLiteral("-n"),
                                                QStringLiteral("100"),
                                                target}
                                 << QStringLiteral("--find-capacity chooses each step's "
                                                   "length: -n cannot be given with it");
        QTest::newRow("with -R") << QStringList{QStringLiteral("http"),
                                                find,
                                                slo,
                                                QStringLiteral("p99=5ms"),
                                                QStringLiteral("-R"),
                                                QStringLiteral("100"),
                                                target}
                                 << QStringLiteral("--find-capacity chooses each step's rate");
        QTest::newRow("memcache --test-time")
            << QStringList{QStringLiteral("memcache"),
                           find,
                           slo,
                           QStringLiteral("p99=5ms"),
                           QStringLiteral("--test-time"),
                           QStringLiteral("5"),
                           QStringLiteral("127.0.0.1:9")}
            << QStringLiteral("--test-time cannot be given with it");
        QTest::newRow("tcp-rr -l") << QStringList{QStringLiteral("tcp-rr"),
                                                  find,
                                                  slo,
                                                  QStringLiteral("p99=5ms"),
                                                  QStringLiteral("-l"),
                                                  QStringLiteral("5"),
                                                  QStringLiteral("127.0.0.1:9")}
                                   << QStringLiteral("-l cannot be given with it");
        QTest::newRow("one step") << QStringList{QStringLiteral("http"),
                                                 find,
                                                 slo,
                                                 QStringLiteral("p99=5ms"),
                                                 QStringLiteral("--max-steps"),
                                                 QStringLiteral("1"),
                                                 target}
                                  << QStringLiteral("--max-steps");
    }

    void badObjectivesAndClashingOptionsAreRefused() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const CliOutcome run = runCli(arguments);
        const QString problem = run.refusalProblem(expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

QTEST_GUILESS_MAIN(TestCapacityCli)
#include "tst_capacity_cli.moc"
