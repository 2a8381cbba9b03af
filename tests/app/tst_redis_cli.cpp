// loadscope-cli memcache -P redis as a user runs it against Debian's
// redis-server, whose own counters (INFO commandstats, keyspace hits and
// misses, errorstats) must agree with the client's exactly; error replies of
// several classes from the real server; the arguments refused; and the probe
// before a sweep against Redis, a Redis that wants a password or refuses
// HELLO, and memcached.
#include "app/session/session_file.h"
#include "app/sweep/target_probe.h"
#include "cli_process.h"
#include "local_peers.h"

#include <QCoroTask>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <optional>

using namespace loadscope;
using loadscope::testing::CliOutcome;
using loadscope::testing::integer;
using loadscope::testing::jsonAt;
using loadscope::testing::MemcachedPeer;
using loadscope::testing::redisInfoFields;
using loadscope::testing::RedisPeer;
using loadscope::testing::runCli;

namespace {

// A field of cmdstat_<command>: "calls" (run), "rejected_calls" (refused before running, as
// when out of memory), "failed_calls" (run, answered with an error); 0 when it never came.
qint64 calls(const RedisPeer& redis, const char* command, const char* field = "calls") {
    const auto stats = redis.info(QStringLiteral("commandstats"));
    return redisInfoFields(stats.value(QStringLiteral("cmdstat_") + QLatin1String(command)))
        .value(QLatin1String(field));
}

qint64 errorCount(const RedisPeer& redis, const char* code) {
    const auto stats = redis.info(QStringLiteral("errorstats"));
    return redisInfoFields(stats.value(QStringLiteral("errorstat_") + QLatin1String(code)))
        .value(QStringLiteral("count"));
}

// "7.0.15", from redis-server --version.
QString redisVersion() {
    const QByteArray line = loadscope::testing::runProgram(QStringLiteral("/usr/bin/redis-server"),
                                                           {QStringLiteral("--version")})
                                .out;
    const qsizetype at = line.indexOf("v=");
    return at < 0 ? QString()
                  : QString::fromLatin1(line.mid(at + 2, line.indexOf(' ', at) - at - 2));
}

qint64 keyspace(const RedisPeer& redis, const char* name) {
    return redis.info(QStringLiteral("stats"))
        .value(QLatin1String(name), QStringLiteral("-1"))
        .toLongLong();
}

CliOutcome runRedis(const RedisPeer& redis, const QStringList& options) {
    return runCli(QStringList{QStringLiteral("memcache"), QStringLiteral("--json"),
                              QStringLiteral("-"), QStringLiteral("-q")}
                  << options << redis.address());
}

app::Target redisTarget(const QString& address, const QString& protocol) {
    app::Target target = app::makeTarget(QStringLiteral("r"), app::DeploymentMode::Host, 0);
    target.protocol = app::TargetProtocol::Redis;
    target.address = address;
    target.redis.protocol = protocol;
    return target;
}

// A coroutine of its own, so that its parameters live in its frame.
QCoro::Task<> probeInto(app::Target target, std::optional<app::ProbeResult>* result) {
    *result = co_await app::probeTarget(std::move(target), std::chrono::milliseconds(3000));
}

std::optional<app::ProbeResult> probeResult(const app::Target& target) {
    std::optional<app::ProbeResult> result;
    auto task = probeInto(target, &result);
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 10000))
        qWarning("the probe gave no verdict within 10 s");
    return result;
}

} // namespace

class TestRedisCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void commandStatsEqualTheClientsOps_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<int>("connections");
        QTest::addColumn<bool>("hello");
        QTest::newRow("-P redis, memtier's 1:10 R:R")
            << QStringList{QStringLiteral("-P"), QStringLiteral("redis"), QStringLiteral("-c"),
                           QStringLiteral("4"),  QStringLiteral("-t"),    QStringLiteral("2"),
                           QStringLiteral("-n"), QStringLiteral("300")}
            << 8 << false;
        QTest::newRow("1:1 over 100 keys, pipeline 8: gets hit")
            << QStringList{QStringLiteral("-P"),          QStringLiteral("redis"),
                           QStringLiteral("-c"),          QStringLiteral("3"),
                           QStringLiteral("-t"),          QStringLiteral("1"),
                           QStringLiteral("-n"),          QStringLiteral("500"),
                           QStringLiteral("--ratio=1:1"), QStringLiteral("--key-maximum=100"),
                           QStringLiteral("--pipeline"),  QStringLiteral("8")}
            << 3 << false;
        QTest::newRow("-P resp3, S:S, HELLO 3 on every connection")
            << QStringList{QStringLiteral("-P"),
                           QStringLiteral("resp3"),
                           QStringLiteral("-c"),
                           QStringLiteral("5"),
                           QStringLiteral("-t"),
                           QStringLiteral("1"),
                           QStringLiteral("-n"),
                           QStringLiteral("200"),
                           QStringLiteral("--ratio=2:3"),
                           QStringLiteral("--key-pattern=S:S"),
                           QStringLiteral("--key-maximum=50")}
            << 5 << true;
        QTest::newRow("-P resp2, G:G with 1000-byte values")
            << QStringList{QStringLiteral("--protocol=resp2"),
                           QStringLiteral("-c"),
                           QStringLiteral("2"),
                           QStringLiteral("-t"),
                           QStringLiteral("2"),
                           QStringLiteral("-n"),
                           QStringLiteral("250"),
                           QStringLiteral("--key-pattern=G:G"),
                           QStringLiteral("--key-maximum=300"),
                           QStringLiteral("-d"),
                           QStringLiteral("1000")}
            << 4 << true;
    }
    void commandStatsEqualTheClientsOps() {
        QFETCH(QStringList, options);
        QFETCH(int, connections);
        QFETCH(bool, hello);
        RedisPeer redis;
        QVERIFY2(redis.isRunning(), qPrintable(redis.error()));
        const CliOutcome ours = runRedis(redis, options);
        QVERIFY2(ours.exitCode == 0, ours.err.constData());
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(integer(json, "complete"), integer(json, "sets") + integer(json, "gets"));
        QCOMPARE(integer(json, "connections_opened"), qint64(connections));
        QCOMPARE(jsonAt(json, QStringLiteral("protocol")).toString(),
                 options.contains(QStringLiteral("resp3")) ? QStringLiteral("resp3")
                 : hello                                   ? QStringLiteral("resp2")
                                                           : QStringLiteral("redis"));
        // The server's own counters: every command, every hit and miss, exactly.
        QCOMPARE(calls(redis, "set"), integer(json, "sets"));
        QCOMPARE(calls(redis, "get"), integer(json, "gets"));
        QCOMPARE(keyspace(redis, "keyspace_hits"), integer(json, "hits"));
        QCOMPARE(keyspace(redis, "keyspace_misses"), integer(json, "misses"));
        QCOMPARE(calls(redis, "hello"), hello ? qint64(connections) : 0);
        QVERIFY(integer(json, "sets") > 0 && integer(json, "gets") > 0);
    }

    void commandsCountUnderTheirNames() {
        RedisPeer redis;
        QVERIFY2(redis.isRunning(), qPrintable(redis.error()));
        // One connection: its cycle (3 HSET, 1 HGET) starts once and runs 100 times.
        const CliOutcome ours = runRedis(
            redis,
            {QStringLiteral("-P"), QStringLiteral("redis"), QStringLiteral("-c"),
             QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
             QStringLiteral("400"), QStringLiteral("--command=HSET h:__key__ field __data__"),
             QStringLiteral("--command-ratio=3"), QStringLiteral("--command-key-pattern=S"),
             QStringLiteral("--command"), QStringLiteral("HGET \"h:__key__\" field"),
             QStringLiteral("--key-maximum=20")});
        QVERIFY2(ours.exitCode == 0, ours.err.constData());
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "complete"), 400);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(integer(json, "operations.hset"), 300);
        QCOMPARE(integer(json, "operations.hget"), 100);
        QCOMPARE(calls(redis, "hset"), 300);
        QCOMPARE(calls(redis, "hget"), 100);
        QCOMPARE(calls(redis, "set") + calls(redis, "get"), 0);
        // Sequential keys: 300 HSETs over 21 keys touched every one of them.
        QCOMPARE(redis.command({"DBSIZE"}), QByteArray(":21\r\n"));
        const QJsonArray commands = jsonAt(json, QStringLiteral("commands")).toArray();
        QCOMPARE(commands.size(), 2);
        QCOMPARE(commands.at(0).toObject().value(QStringLiteral("ratio")).toInt(), 3);
        QCOMPARE(commands.at(1).toObject().value(QStringLiteral("key_pattern")).toString(),
                 QStringLiteral("R"));
        // memtier's layout: a row per command, no hit or miss columns.
        const CliOutcome report =
            runCli({QStringLiteral("memcache"), QStringLiteral("-P"), QStringLiteral("redis"),
                    QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("1"),
                    QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
                    QStringLiteral("8"), QStringLiteral("--command=HSET h:__key__ field __data__"),
                    QStringLiteral("--command=HGET h:__key__ field"), redis.address()});
        QCOMPARE(report.exitCode, 0);
        QVERIFY2(report.out.contains("\nHsets ") && report.out.contains("\nHgets ") &&
                     report.out.contains("\nTotals ") && !report.out.contains("Hits/sec"),
                 report.out.constData());
    }

    void errorRepliesCountedInTheirClasses() {
        // noeviction: past 2 MB every write is refused with OOM.
        RedisPeer redis({QStringLiteral("--maxmemory"), QStringLiteral("2mb"),
                         QStringLiteral("--maxmemory-policy"), QStringLiteral("noeviction")});
        QVERIFY2(redis.isRunning(), qPrintable(redis.error()));
        // Strings at memtier-0 .. memtier-49, so that list commands on them are WRONGTYPE.
        const CliOutcome strings = runRedis(
            redis, {QStringLiteral("-P"), QStringLiteral("redis"), QStringLiteral("-c"),
                    QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("1"),
                    QStringLiteral("-n"), QStringLiteral("50"), QStringLiteral("--ratio=1:0"),
                    QStringLiteral("--key-pattern=S:S"), QStringLiteral("--key-maximum=49")});
        QCOMPARE(strings.exitCode, 0);
        QCOMPARE(redis.command({"DBSIZE"}), QByteArray(":50\r\n"));

        // One connection, so that each command is exactly a third of the run.
        const CliOutcome ours =
            runRedis(redis, {QStringLiteral("-P"), QStringLiteral("redis"), QStringLiteral("-c"),
                             QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("1"),
                             QStringLiteral("-n"), QStringLiteral("300"),
                             QStringLiteral("--key-maximum=49"), QStringLiteral("-d"),
                             QStringLiteral("200000"), QStringLiteral("--command=LPUSH __key__ x"),
                             QStringLiteral("--command=NOSUCHCOMMAND __key__"),
                             QStringLiteral("--command=SET big:__key__ __data__"),
                             QStringLiteral("--command-key-pattern=S")});
        QVERIFY2(ours.exitCode == 0, ours.err.constData());
        const QJsonObject json = ours.json();
        const qint64 err = integer(json, "error_replies.ERR");
        const qint64 wrongType = integer(json, "error_replies.WRONGTYPE");
        const qint64 oom = integer(json, "error_replies.OOM");
        QCOMPARE(integer(json, "complete"), 300);
        // An unknown command is always ERR. An LPUSH on a string is WRONGTYPE until the
        // first SETs fill the memory; from then on Redis refuses every write, LPUSH too, with
        // OOM. Only those first SETs succeed.
        const qint64 stored = calls(redis, "set") - 50;
        QCOMPARE(err, 100);
        QVERIFY2(wrongType > 0 && oom > 0 && stored > 0, ours.out.constData());
        QCOMPARE(wrongType + oom + stored, 200);
        QCOMPARE(integer(json, "complete") - integer(json, "failed"), stored);
        QCOMPARE(integer(json, "failed_exceptions"), err + wrongType + oom);
        QCOMPARE(integer(json, "failed"), err + wrongType + oom);
        QCOMPARE(jsonAt(json, QStringLiteral("error_replies")).toObject().size(), 3);
        // The server's own count of each class, and of each command's fate.
        QCOMPARE(errorCount(redis, "ERR"), err);
        QCOMPARE(errorCount(redis, "WRONGTYPE"), wrongType);
        QCOMPARE(errorCount(redis, "OOM"), oom);
        QCOMPARE(calls(redis, "lpush") + calls(redis, "lpush", "rejected_calls"), 100);
        QCOMPARE(calls(redis, "lpush", "failed_calls"), wrongType);
        QCOMPARE(calls(redis, "set") + calls(redis, "set", "rejected_calls"), 50 + 100);
        QCOMPARE(calls(redis, "lpush", "rejected_calls") + calls(redis, "set", "rejected_calls"),
                 oom);
        QVERIFY(jsonAt(json, QStringLiteral("first_error"))
                    .toString()
                    .startsWith(QStringLiteral("WRONGTYPE")));
        // The report says them as classes.
        QCOMPARE(redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
        QCOMPARE(redis.command({"SET", "memtier-0", "string"}), QByteArray("+OK\r\n"));
        const CliOutcome report = runCli(
            {QStringLiteral("memcache"), QStringLiteral("-P"), QStringLiteral("redis"),
             QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("1"), QStringLiteral("-t"),
             QStringLiteral("1"), QStringLiteral("-n"), QStringLiteral("4"),
             QStringLiteral("--command=LPUSH __key__ x"), QStringLiteral("--command=NOSUCH"),
             QStringLiteral("--key-maximum=0"), redis.address()});
        QCOMPARE(report.exitCode, 0);
        QVERIFY2(report.out.contains("Error replies: 4 (ERR: 2, WRONGTYPE: 2), counted in "
                                     "Exceptions\n") &&
                     report.out.contains("First error reply: WRONGTYPE"),
                 report.out.constData());
    }

    void preloadThenGetsAllHit() {
        RedisPeer redis;
        QVERIFY2(redis.isRunning(), qPrintable(redis.error()));
        const CliOutcome ours =
            runRedis(redis, {QStringLiteral("-P"), QStringLiteral("redis"),
                             QStringLiteral("--preload"), QStringLiteral("--key-minimum=1"),
                             QStringLiteral("--key-maximum=300"), QStringLiteral("--ratio=0:1"),
                             QStringLiteral("-c"), QStringLiteral("2"), QStringLiteral("-t"),
                             QStringLiteral("2"), QStringLiteral("-n"), QStringLiteral("100")});
        QVERIFY2(ours.exitCode == 0, ours.err.constData());
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "preload.keys"), 300);
        QCOMPARE(redis.command({"DBSIZE"}), QByteArray(":300\r\n"));
        QCOMPARE(calls(redis, "set"), 300);
        QCOMPARE(integer(json, "hits"), 400);
        QCOMPARE(keyspace(redis, "keyspace_hits"), 400);
        QCOMPARE(keyspace(redis, "keyspace_misses"), 0);
    }

    void sweepKeepsTheRedisTargetAndItsClasses() {
        RedisPeer redis;
        QVERIFY2(redis.isRunning(), qPrintable(redis.error()));
        QCOMPARE(redis.command({"SET", "memtier-0", "string"}), QByteArray("+OK\r\n"));
        app::Session session;
        app::Target target = redisTarget(redis.address(), QStringLiteral("resp3"));
        target.redis.workload.keyMaximum = 0;
        target.redis.commands = {{QStringLiteral("LPUSH __key__ x"), 1, QStringLiteral("R")},
                                 {QStringLiteral("GET __key__"), 3, QStringLiteral("S")}};
        session.targets.push_back(target);
        session.plan.concurrencyLevels = {1}; // one cycle of commands, exact counts
        session.plan.limit = app::PointLimit::Requests;
        session.plan.requestsPerPoint = 400;
        session.plan.repetitions = 1;
        session.plan.threads = 1;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("redis.loadscope"));
        QVERIFY(app::saveSessionFile(session, path));
        const CliOutcome run = runCli(
            {QStringLiteral("sweep"), path, QStringLiteral("--no-probe"), QStringLiteral("-q")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const auto saved = app::loadSessionFile(path);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->targets.front().redis, target.redis);
        QCOMPARE(saved->results.size(), size_t(1));
        const app::PointResult& result = saved->results.front();
        QCOMPARE(result.complete, uint64_t(400));
        // One LPUSH (WRONGTYPE on the string), then three GETs, 100 times.
        QCOMPARE(result.errorReplyCodes,
                 (std::map<QString, uint64_t>{{QStringLiteral("WRONGTYPE"), 100}}));
        QCOMPARE(result.errors[size_t(engine::ErrorClass::Exception)], uint64_t(100));
        // Every LPUSH failed: no successful one counts (failures raise no rate).
        QCOMPARE(result.operationCounts.at(QStringLiteral("lpush")), uint64_t(0));
        QCOMPARE(result.operationCounts.at(QStringLiteral("get")), uint64_t(300));
        QCOMPARE(qint64(result.errorReplyCodes.at(QStringLiteral("WRONGTYPE"))),
                 errorCount(redis, "WRONGTYPE"));
        QCOMPARE(calls(redis, "get"), 300);
        QCOMPARE(calls(redis, "hello"), 1);
    }

    void probeSaysWhatAnswered_data() {
        QTest::addColumn<QString>("server"); // "redis", "password", "no hello", "memcached"
        QTest::addColumn<QString>("protocol");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("summary");
        const QString version = redisVersion();
        QTest::newRow("redis") << QStringLiteral("redis") << QStringLiteral("redis") << true
                               << QStringLiteral("redis ") + version;
        QTest::newRow("resp3") << QStringLiteral("redis") << QStringLiteral("resp3") << true
                               << QStringLiteral("redis ") + version + QStringLiteral(" (RESP3)");
        QTest::newRow("a password wanted")
            << QStringLiteral("password") << QStringLiteral("redis") << false
            << QStringLiteral("refused PING: NOAUTH Authentication required.");
        QTest::newRow("HELLO refused")
            << QStringLiteral("no hello") << QStringLiteral("resp3") << false
            << QStringLiteral("refused HELLO 3 (-P resp3): ERR unknown command 'HELLO'");
        QTest::newRow("HELLO refused, plain RESP2 fine")
            << QStringLiteral("no hello") << QStringLiteral("redis") << true
            << QStringLiteral("redis ") + version;
        QTest::newRow("memcached") << QStringLiteral("memcached") << QStringLiteral("redis")
                                   << false << QStringLiteral("is not a Redis server: ");
    }
    void probeSaysWhatAnswered() {
        QFETCH(QString, server);
        QFETCH(QString, protocol);
        QFETCH(bool, ok);
        QFETCH(QString, summary);
        std::unique_ptr<RedisPeer> redis;
        std::unique_ptr<MemcachedPeer> memcached;
        QString address;
        if (server == QLatin1String("memcached")) {
            memcached = std::make_unique<MemcachedPeer>();
            QVERIFY2(memcached->isRunning(), qPrintable(memcached->error()));
            address = loadscope::testing::address(memcached->port());
        } else {
            QStringList options;
            if (server == QLatin1String("password"))
                options = {QStringLiteral("--requirepass"), QStringLiteral("secret")};
            else if (server == QLatin1String("no hello"))
                options = {QStringLiteral("--rename-command"), QStringLiteral("HELLO"), QString()};
            redis = std::make_unique<RedisPeer>(options);
            QVERIFY2(redis->isRunning(), qPrintable(redis->error()));
            address = redis->address();
        }
        const auto result = probeResult(redisTarget(address, protocol));
        QVERIFY(result);
        QCOMPARE(result->ok, ok);
        QVERIFY2(result->summary().contains(summary), qPrintable(result->summary()));
    }

    void badArgumentsGiveOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("memcache_binary")
            << QStringList{QStringLiteral("-P"), QStringLiteral("memcache_binary")}
            << QStringLiteral("-P memcache_binary is not supported");
        QTest::newRow("unknown protocol")
            << QStringList{QStringLiteral("-P"), QStringLiteral("resp4")}
            << QStringLiteral("-P wants memcache_text, redis, resp2 or resp3, not 'resp4'");
        QTest::newRow("--command without Redis")
            << QStringList{QStringLiteral("--command=PING")}
            << QStringLiteral("--command needs Redis: add -P redis, resp2 or resp3");
        QTest::newRow("--command-ratio first")
            << QStringList{QStringLiteral("-P"), QStringLiteral("redis"),
                           QStringLiteral("--command-ratio=2"), QStringLiteral("--command=PING")}
            << QStringLiteral("--command-ratio applies to a --command given before it");
        QTest::newRow("--ratio with --command")
            << QStringList{QStringLiteral("-P"), QStringLiteral("redis"),
                           QStringLiteral("--command=PING"), QStringLiteral("--ratio=1:1")}
            << QStringLiteral("--ratio does not apply to --command");
        QTest::newRow("unbalanced quotes")
            << QStringList{QStringLiteral("-P"), QStringLiteral("redis"),
                           QStringLiteral("--command=SET \"a __data__")}
            << QStringLiteral("unbalanced quotes in the command");
        QTest::newRow("key pattern Z") << QStringList{QStringLiteral("-P"), QStringLiteral("redis"),
                                                      QStringLiteral("--command=GET __key__"),
                                                      QStringLiteral("--command-key-pattern=Z")}
                                       << QStringLiteral("key pattern 'Z' is not R, S or G");
    }
    void badArgumentsGiveOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const CliOutcome outcome = runCli(QStringList{QStringLiteral("memcache")}
                                          << arguments << QStringLiteral("127.0.0.1:1"));
        const QString problem = outcome.refusalProblem(expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

QTEST_GUILESS_MAIN(TestRedisCli)
#include "tst_redis_cli.moc"
