// loadscope-cli memcache as a user runs it against real memcached, whose own
// counters must agree with the client's, and against memcached out of memory.
// Stand-ins that answer with errors or hang up, and bad arguments: tst_memcache_cli_faults.
#include "cli_process.h"
#include "local_peers.h"
#include "out_of_memory_memcached.h"

#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::address;
using loadscope::testing::CliOutcome;
using loadscope::testing::integer;
using loadscope::testing::MemcachedPeer;
using loadscope::testing::OutOfMemoryMemcached;
using loadscope::testing::runCli;

namespace {

using Stats = loadscope::testing::MemcachedStats;

qint64 delta(const Stats& before, const Stats& after, const char* key) {
    return after.value(QLatin1String(key)) - before.value(QLatin1String(key));
}

// One memcache run of 200 requests with 100 kB values against a memcached of
// 2 MB that refuses a set once full (-M): it holds about twenty, then every
// set is refused. Its counters before and after, and the run's JSON report.
struct FullMemcachedRun {
    OutOfMemoryMemcached memcached;
    Stats before;
    Stats after;
    CliOutcome outcome;
    QJsonObject json;

    void start(const QString& ratio) {
        QVERIFY2(memcached.port() != 0, "memcached -m 2 -M did not start");
        before = memcached.stats();
        QTemporaryDir dir;
        const QString jsonPath = dir.filePath(QStringLiteral("run.json"));
        outcome = runCli({QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("1"),
                          QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
                          QStringLiteral("200"), ratio, QStringLiteral("--key-pattern=S:S"),
                          QStringLiteral("-d"), QStringLiteral("100000"), QStringLiteral("--json"),
                          jsonPath, address(memcached.port())});
        QCOMPARE(outcome.exitCode, 0);
        after = memcached.stats();
        QFile file(jsonPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        json = QJsonDocument::fromJson(file.readAll()).object();
    }
};

} // namespace

class TestMemcacheCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
                 "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void serverCountersMatchClient_data() {
        QTest::addColumn<int>("clients");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("requests");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("memtier defaults, 1:10 R:R") << 4 << 2 << 500 << QStringList{};
        QTest::newRow("1:1 over 200 keys: gets hit")
            << 5 << 2 << 400
            << QStringList{QStringLiteral("--ratio=1:1"), QStringLiteral("--key-maximum"),
                           QStringLiteral("200")};
        QTest::newRow("S:S, pipeline 8")
            << 2 << 2 << 1000
            << QStringList{QStringLiteral("--key-pattern=S:S"), QStringLiteral("--key-maximum"),
                           QStringLiteral("1000"), QStringLiteral("--pipeline"),
                           QStringLiteral("8")};
        QTest::newRow("G:G 3:7, 100-byte values") << 3 << 1 << 700
                                                  << QStringList{QStringLiteral("--key-pattern"),
                                                                 QStringLiteral("G:G"),
                                                                 QStringLiteral("--ratio"),
                                                                 QStringLiteral("3:7"),
                                                                 QStringLiteral("--key-maximum"),
                                                                 QStringLiteral("300"),
                                                                 QStringLiteral("-d"),
                                                                 QStringLiteral("100")};
        QTest::newRow("one request") << 1 << 1 << 1 << QStringList{};
        QTest::newRow("-c 50 -t 2 -n 20") << 50 << 2 << 20 << QStringList{};
    }
    void serverCountersMatchClient() {
        QFETCH(int, clients);
        QFETCH(int, threads);
        QFETCH(int, requests);
        QFETCH(QStringList, options);
        MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        const Stats before = memcached.stats();
        QVERIFY(before.contains(QStringLiteral("cmd_get")));
        const CliOutcome ours = runCli(
            QStringList{QStringLiteral("memcache"), QStringLiteral("-c"), QString::number(clients),
                        QStringLiteral("-t"), QString::number(threads), QStringLiteral("-n"),
                        QString::number(requests), QStringLiteral("--json"), QStringLiteral("-")}
            << options << address(memcached.port()));
        QCOMPARE(ours.exitCode, 0);
        const Stats after = memcached.stats();
        const QJsonObject json = ours.json();

        const qint64 total = qint64(clients) * threads * requests;
        QCOMPARE(integer(json, "complete"), total);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(integer(json, "sets") + integer(json, "gets"), total);
        QCOMPARE(integer(json, "hits") + integer(json, "misses"), integer(json, "gets"));
        QCOMPARE(integer(json, "connections_opened"), qint64(clients) * threads);
        // The server's own counters, command by command.
        QCOMPARE(delta(before, after, "cmd_get"), integer(json, "gets"));
        QCOMPARE(delta(before, after, "cmd_set"), integer(json, "sets"));
        QCOMPARE(delta(before, after, "get_hits"), integer(json, "hits"));
        QCOMPARE(delta(before, after, "get_misses"), integer(json, "misses"));
        // Every client connection, and the one that read `after`.
        QCOMPARE(delta(before, after, "total_connections"), qint64(clients) * threads + 1);
    }

    void preloadThenGetsAllHit() {
        MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        const Stats before = memcached.stats();
        const QStringList range{QStringLiteral("--key-minimum"),
                                QStringLiteral("1"),
                                QStringLiteral("--key-maximum"),
                                QStringLiteral("500"),
                                QStringLiteral("--ratio=0:1"),
                                QStringLiteral("-c"),
                                QStringLiteral("3"),
                                QStringLiteral("-t"),
                                QStringLiteral("2"),
                                QStringLiteral("-n"),
                                QStringLiteral("100")};
        const CliOutcome preloaded =
            runCli(QStringList{QStringLiteral("memcache"), QStringLiteral("--preload"),
                               QStringLiteral("--json"), QStringLiteral("-")}
                   << range << address(memcached.port()));
        QCOMPARE(preloaded.exitCode, 0);
        const Stats after = memcached.stats();
        QJsonObject json = preloaded.json();
        QCOMPARE(integer(json, "preload.keys"), 500);
        QCOMPARE(integer(json, "preload.failed"), 0);
        QCOMPARE(integer(json, "complete"), 600);
        QCOMPARE(integer(json, "hits"), 600);
        QCOMPARE(integer(json, "misses"), 0);
        QCOMPARE(json.value(QStringLiteral("hit_ratio")).toDouble(), 1.0);
        // The preload set each key once and is not part of the measured counts.
        QCOMPARE(after.value(QStringLiteral("curr_items")), 500);
        QCOMPARE(delta(before, after, "cmd_set"), 500);
        QCOMPARE(integer(json, "sets"), 0);
        QCOMPARE(delta(before, after, "get_hits"), 600);

        // A later get-only run over the same range finds every key too, and says so.
        const CliOutcome again =
            runCli(QStringList{QStringLiteral("memcache")} << range << address(memcached.port()));
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains("Gets: 600 hits, 0 misses (100.0% hit)"),
                 again.out.constData());
        QVERIFY(!again.out.contains("Preloaded"));

        const CliOutcome text =
            runCli(QStringList{QStringLiteral("memcache"), QStringLiteral("--preload")}
                   << range << address(memcached.port()));
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(QRegularExpression(QStringLiteral("\nPreloaded 500 keys in \\d+\\.\\d\\d s\n"))
                     .match(QString::fromUtf8(text.out))
                     .hasMatch(),
                 text.out.constData());
    }

    void jsonHasEveryDocumentedKey() {
        MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        const CliOutcome ours = runCli(
            {QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("2"),
             QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"), QStringLiteral("100"),
             QStringLiteral("--key-maximum"), QStringLiteral("20"), QStringLiteral("--ratio=1:1"),
             QStringLiteral("--json"), QStringLiteral("-"), address(memcached.port())});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        const QStringList keys{QStringLiteral("complete"),
                               QStringLiteral("failed"),
                               QStringLiteral("failed_connect"),
                               QStringLiteral("failed_receive"),
                               QStringLiteral("failed_length"),
                               QStringLiteral("failed_exceptions"),
                               QStringLiteral("failed_write"),
                               QStringLiteral("timeouts"),
                               QStringLiteral("bytes_total"),
                               QStringLiteral("bytes_sent"),
                               QStringLiteral("duration_s"),
                               QStringLiteral("concurrency"),
                               QStringLiteral("threads"),
                               QStringLiteral("thread_cpus"),
                               QStringLiteral("client_cpu_load"),
                               QStringLiteral("server"),
                               QStringLiteral("clients_per_thread"),
                               QStringLiteral("pipeline"),
                               QStringLiteral("requests_per_client"),
                               QStringLiteral("test_time_s"),
                               QStringLiteral("ratio"),
                               QStringLiteral("key_pattern"),
                               QStringLiteral("key_minimum"),
                               QStringLiteral("key_maximum"),
                               QStringLiteral("key_prefix"),
                               QStringLiteral("data_size"),
                               QStringLiteral("ops_per_second"),
                               QStringLiteral("sets"),
                               QStringLiteral("gets"),
                               QStringLiteral("sets_per_second"),
                               QStringLiteral("gets_per_second"),
                               QStringLiteral("hits"),
                               QStringLiteral("misses"),
                               QStringLiteral("hits_per_second"),
                               QStringLiteral("misses_per_second"),
                               QStringLiteral("hit_ratio"),
                               QStringLiteral("kb_per_second"),
                               QStringLiteral("error_replies"),
                               QStringLiteral("latency_ms"),
                               QStringLiteral("set_latency_ms"),
                               QStringLiteral("get_latency_ms")};
        for (const QString& key : keys)
            QVERIFY2(json.contains(key), qPrintable(key));
        QVERIFY(!json.contains(QStringLiteral("preload")));
        for (const char* kind : {"error", "client_error", "server_error"})
            QVERIFY2(json.value(QStringLiteral("error_replies"))
                         .toObject()
                         .contains(QLatin1String(kind)),
                     kind);
        for (const char* object : {"latency_ms", "set_latency_ms", "get_latency_ms"}) {
            const QJsonObject latency = json.value(QLatin1String(object)).toObject();
            for (const char* key : {"min", "mean", "sd", "p50", "p66", "p75", "p80", "p90", "p95",
                                    "p98", "p99", "p99_9", "p99_99", "max"})
                QVERIFY2(latency.contains(QLatin1String(key)),
                         qPrintable(QLatin1String(object) + QLatin1Char('.') + QLatin1String(key)));
            QVERIFY(latency.value(QStringLiteral("min")).toDouble() > 0);
            QVERIFY(latency.value(QStringLiteral("p50")).toDouble() <=
                    latency.value(QStringLiteral("max")).toDouble());
        }
        // The budget is shared by the connections, so only the total is exact.
        QCOMPARE(integer(json, "sets") + integer(json, "gets"), 200);
        QVERIFY(integer(json, "sets") >= 98 && integer(json, "gets") >= 98);
        QCOMPARE(integer(json, "concurrency"), 2);
        QCOMPARE(integer(json, "requests_per_client"), 100);
        QCOMPARE(json.value(QStringLiteral("ratio")).toString(), QStringLiteral("1:1"));
        QCOMPARE(json.value(QStringLiteral("key_pattern")).toString(), QStringLiteral("R:R"));
        QCOMPARE(json.value(QStringLiteral("key_prefix")).toString(), QStringLiteral("memtier-"));
        const double seconds = json.value(QStringLiteral("duration_s")).toDouble();
        QVERIFY(qAbs(json.value(QStringLiteral("ops_per_second")).toDouble() * seconds - 200) < 1);
        const double wireKib =
            double(integer(json, "bytes_total") + integer(json, "bytes_sent")) / 1024.0 / seconds;
        QVERIFY(qAbs(json.value(QStringLiteral("kb_per_second")).toDouble() - wireKib) <
                wireKib * 1e-9);
        // Each set sends its 32-byte value; each get of a key that was set brings one back.
        QVERIFY(integer(json, "bytes_sent") > 100 * 32);
        QCOMPARE(integer(json, "bytes_body"), 32 * integer(json, "hits"));
    }

    void reportFollowsMemtierLayout() {
        MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("run.csv"));
        const CliOutcome ours =
            runCli({QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("4"),
                    QStringLiteral("-t"), QStringLiteral("2"), QStringLiteral("-n"),
                    QStringLiteral("250"), QStringLiteral("--key-maximum"), QStringLiteral("99"),
                    QStringLiteral("--csv"), csv, address(memcached.port())});
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        const QStringList sections{QStringLiteral("2 threads x 4 clients = 8 connections"),
                                   QStringLiteral("2000 requests (250 per client) in"),
                                   QStringLiteral("ALL STATS"),
                                   QStringLiteral("Type"),
                                   QStringLiteral("Ops/sec"),
                                   QStringLiteral("Hits/sec"),
                                   QStringLiteral("Misses/sec"),
                                   QStringLiteral("Avg. Latency"),
                                   QStringLiteral("p50 Latency"),
                                   QStringLiteral("p99 Latency"),
                                   QStringLiteral("p99.9 Latency"),
                                   QStringLiteral("KB/sec"),
                                   QStringLiteral("\nSets "),
                                   QStringLiteral("\nGets "),
                                   QStringLiteral("\nTotals "),
                                   QStringLiteral("\nGets: "),
                                   QStringLiteral("\nThreads: 2 (")};
        qsizetype at = 0;
        for (const QString& section : sections) {
            const qsizetype found = text.indexOf(section, at);
            QVERIFY2(found >= 0, qPrintable(QStringLiteral("missing or out of order: ") + section));
            at = found;
        }
        // Rows: a name and eight figures; Sets have no hit or miss rates.
        const QRegularExpression number(QStringLiteral("^\\d+\\.\\d+$"));
        for (const char* row : {"Sets", "Gets", "Totals"}) {
            const QRegularExpression line(
                QStringLiteral("\n(%1 [^\n]*)\n").arg(QLatin1String(row)));
            const QStringList cells =
                line.match(text).captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
            QCOMPARE(cells.size(), 9);
            for (qsizetype i = 1; i < cells.size(); ++i) {
                const bool dash = QLatin1String(row) == QLatin1String("Sets") && (i == 2 || i == 3);
                QVERIFY2(dash ? cells.at(i) == QLatin1String("---")
                              : number.match(cells.at(i)).hasMatch(),
                         qPrintable(cells.join(QLatin1Char(' '))));
            }
        }
        const auto hits =
            QRegularExpression(
                QStringLiteral("\nGets: (\\d+) hits, (\\d+) misses \\((\\d+\\.\\d)% hit\\)\n"))
                .match(text);
        QVERIFY(hits.hasMatch());
        QVERIFY(hits.captured(1).toInt() > 0); // 100 keys, sets first: most gets hit
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QVERIFY(lines.size() >= 2);
        const QList<QByteArray> header = lines.at(0).trimmed().split(',');
        const QList<QByteArray> row = lines.at(1).trimmed().split(',');
        QCOMPARE(header.size(), row.size());
        QCOMPARE(row.at(header.indexOf("complete")), QByteArray("2000"));
        QCOMPARE(row.at(header.indexOf("hits")), hits.captured(1).toUtf8());
        QVERIFY(header.contains("get_latency_ms_p99"));
        QVERIFY(header.contains("error_replies_server_error"));
    }

    void outOfMemoryRepliesAreCounted() {
        FullMemcachedRun run;
        run.start(QStringLiteral("--ratio=1:0"));
        if (QTest::currentTestFailed())
            return;
        const CliOutcome& ours = run.outcome;
        const Stats& before = run.before;
        const Stats& after = run.after;
        const QJsonObject& json = run.json;
        const qint64 refused = integer(json, "error_replies.server_error");
        QCOMPARE(integer(json, "complete"), 200);
        QVERIFY2(refused > 100 && refused < 200, qPrintable(QString::number(refused)));
        QCOMPARE(integer(json, "sets"), 200 - refused); // the sets stored: a refused one failed
        QCOMPARE(integer(json, "failed"), refused);
        QCOMPARE(integer(json, "failed_exceptions"), refused);
        QCOMPARE(integer(json, "error_replies.error"), 0);
        QCOMPARE(integer(json, "error_replies.client_error"), 0);
        QCOMPARE(json.value(QStringLiteral("first_error")).toString(),
                 QStringLiteral("SERVER_ERROR out of memory storing object"));
        // What memcached stored is exactly what it did not refuse.
        QCOMPARE(delta(before, after, "total_items"), 200 - refused);
        QVERIFY2(ours.out.contains("First error reply: SERVER_ERROR out of memory storing object"),
                 ours.out.constData());
        QVERIFY2(ours.out.contains(QStringLiteral("SERVER_ERROR: %1)").arg(refused).toUtf8()),
                 ours.out.constData());
    }

    // README: "failures never raise a rate". memcached out of memory refuses
    // most sets: the Sets row counts the sets it stored, and the rows add up
    // as memtier's do (Totals = Sets + Gets, the successful operations).
    void failedSetsRaiseNoRate() {
        FullMemcachedRun run;
        run.start(QStringLiteral("--ratio=1:1"));
        if (QTest::currentTestFailed())
            return;
        const Stats& before = run.before;
        const Stats& after = run.after;
        const QByteArray out = run.outcome.out;
        const QJsonObject& json = run.json;
        // memcached counts what it stored; the sets it refused it answered
        // SERVER_ERROR, and the 1:1 ratio over 200 requests sends 100 sets.
        const qint64 stored = delta(before, after, "total_items");
        const qint64 refused = integer(json, "error_replies.server_error");
        QVERIFY2(refused > 50 && stored > 0, qPrintable(QString::number(refused)));
        QCOMPARE(stored + refused, 100);
        QCOMPARE(integer(json, "failed"), refused);
        QCOMPARE(integer(json, "sets"), stored);
        QCOMPARE(integer(json, "gets"), delta(before, after, "cmd_get"));
        QCOMPARE(integer(json, "sets") + integer(json, "gets"),
                 integer(json, "complete") - integer(json, "failed"));
        const double seconds = json.value(QStringLiteral("duration_s")).toDouble();
        QVERIFY(seconds > 0);
        const auto row = [&out](const char* type) {
            const auto match =
                QRegularExpression(
                    QStringLiteral("\n%1 +(\\d+\\.\\d\\d) ").arg(QLatin1String(type)))
                    .match(QString::fromUtf8(out));
            return match.hasMatch() ? match.captured(1).toDouble() : -1.0;
        };
        const double sets = row("Sets");
        const double gets = row("Gets");
        const double totals = row("Totals");
        // The report's two decimals, and the JSON's duration to the microsecond.
        const auto near = [](double shown, double truth) {
            return qAbs(shown - truth) <= 0.006 + truth * 1e-4;
        };
        QVERIFY2(near(sets, double(stored) / seconds), out.constData());
        QVERIFY2(near(gets, double(integer(json, "gets")) / seconds), out.constData());
        QVERIFY2(qAbs(totals - (sets + gets)) <= 0.011, out.constData());
    }
};

QTEST_GUILESS_MAIN(TestMemcacheCli)
#include "tst_memcache_cli.moc"
