// The lab's example sessions, swept headless and small as a user runs them
// (`loadscope-cli sweep lab-…`): the sweep builds the lab, runs every
// target's points through its agent and tears it down; each result is held
// to what its server sends, where it ran, and whose CPU was the server's.
// Beside them, Redis's lab targets swept the same way.
#include "app/lab/lab_targets.h"
#include "app/session/session_file.h"
#include "lab_sandbox_support.h"
#include "process_tree_cpu.h"

#include <QElapsedTimer>
#include <QMap>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace loadscope;
using namespace loadscope::testing;

class TestLabExamples : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
    }

    // Checked after every test function: nothing of a lab is left in the machine's namespace.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // The example sessions, headless and small: the sweep builds the lab,
    // runs every target's points through its agent, and tears it down (the
    // host snapshot is compared after this function as after every other).
    void labExampleSessionSweepsThroughTheLab_data() {
        QTest::addColumn<QString>("example");
        for (const char* example : {"lab-tcp-rr", "lab-nginx-bridge", "lab-memcached",
                                    "lab-apache-modes", "lab-k8s-paths", "lab-nginx-localhost"})
            QTest::newRow(example) << QString::fromLatin1(example);
    }

    void labExampleSessionSweepsThroughTheLab() {
        QFETCH(QString, example);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QFile file(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                   QStringLiteral("/resources/sessions/%1.loadscope").arg(example));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject session = QJsonDocument::fromJson(file.readAll()).object();
        for (const QJsonValue mode : session.value(u"lab")[u"modes"].toArray())
            if (!m_lab.reasons.at(mode.toString()).isEmpty())
                QSKIP(qPrintable(mode.toString() + QStringLiteral(": ") +
                                 m_lab.reasons.at(mode.toString())));
        const QJsonArray targets = session.value(u"targets").toArray();
        const QString server = targets.at(0)[u"lab"][u"server"].toString();
        if (!m_lab.servers.at(server).isEmpty())
            QSKIP(qPrintable(server + QStringLiteral(": ") + m_lab.servers.at(server)));
        QJsonObject plan = session.value(u"plan").toObject();
        plan.insert(QStringLiteral("durationSeconds"), 0.5);
        plan.insert(QStringLiteral("warmupSeconds"), 0);
        plan.insert(QStringLiteral("repetitions"), 1);
        plan.insert(QStringLiteral("concurrency"), QJsonArray{2});
        session.insert(QStringLiteral("plan"), plan);
        session.insert(QStringLiteral("targets"), withKeysOfOneLength(session.value(u"targets")));
        QTemporaryDir dir;
        QFile small(dir.filePath(QStringLiteral("lab.loadscope")));
        QVERIFY(small.open(QIODevice::WriteOnly));
        small.write(QJsonDocument(session).toJson());
        small.close();
        const QString out = dir.filePath(QStringLiteral("out.loadscope"));
        double serverTruth = 0;
        const CliOutcome sweep = sweepWatchingServers(
            {QStringLiteral("sweep"), small.fileName(), QStringLiteral("--out"), out,
             QStringLiteral("--idle-check"), QStringLiteral("0")},
            90'000, serverTruth);
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        QFile saved(out);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QJsonArray results =
            QJsonDocument::fromJson(saved.readAll()).object().value(u"results").toArray();
        QCOMPARE(results.size(), targets.size()); // one point per mode
        const double mtu = session.value(u"lab")[u"mtu"].toDouble(1500);
        QSet<QString> paths;
        for (const QJsonValue& result : results) {
            const double complete = result[u"complete"].toDouble();
            QVERIFY(complete > 0);
            QCOMPARE(result[u"failed"].toDouble(), 0.0);
            checkExampleBytes(targets.at(0).toObject(), result.toObject());
            // Where it ran, with the result: the session's MTU, its mode's
            // own path, and the versions of the kernel and the server.
            const QJsonValue environment = result[u"environment"];
            QCOMPARE(environment[u"labMtu"].toDouble(), mtu);
            paths.insert(environment[u"labPath"].toString());
            // Where its client stood, as the session's lab asked: on the server host, each path
            // starts where a local client does (lab-nginx-localhost: on localhost).
            const QString placement =
                session.value(u"lab")[u"clientPlacement"].toString(QStringLiteral("wire"));
            QCOMPARE(environment[u"labClient"].toString(), placement);
            if (placement == QLatin1String("server-host"))
                QVERIFY2(environment[u"labPath"].toString().startsWith(u"localhost → "),
                         qPrintable(environment[u"labPath"].toString()));
            const QString versions = environment[u"labVersions"].toString();
            QVERIFY2(versions.contains(QStringLiteral("kernel ")) &&
                         versions.contains(server + QLatin1Char(' ')),
                     qPrintable(versions));
        }
        QCOMPARE(paths.size(), results.size());
        QVERIFY(!paths.contains(QString()));
        checkServerCpu(results, serverTruth);
        checkProfiles(targets, results);
        QVERIFY(labProcesses().empty());
    }

    // Debian's redis-server as the lab's server, on the host and behind the container NAT's
    // DNAT and conntrack: every SET and GET answered, none an error reply.
    void redisTargetsSweepThroughTheLab() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const std::vector<app::lab::LabMode> modes{app::lab::LabMode::Host, app::lab::LabMode::Nat};
        for (const app::lab::LabMode mode : modes)
            if (!m_lab.reasons.at(app::lab::labModeId(mode)).isEmpty())
                QSKIP(qPrintable(m_lab.reasons.at(app::lab::labModeId(mode))));
        if (!m_lab.servers.at(QStringLiteral("redis")).isEmpty())
            QSKIP(qPrintable(m_lab.servers.at(QStringLiteral("redis"))));
        app::Session session;
        const auto edit =
            app::lab::labTargets(session, {app::lab::LabServerKind::Redis, modes, 1500});
        QVERIFY(edit.ok());
        session.targets = edit->targets;
        session.lab = edit->lab;
        for (app::Target& target : session.targets) {
            QCOMPARE(target.protocol, app::TargetProtocol::Redis);
            target.redis.protocol = QStringLiteral("resp3");
            target.redis.workload.setRatio = 1;
            target.redis.workload.getRatio = 1;
            target.redis.workload.keyMaximum = 99;
        }
        session.plan.concurrencyLevels = {2};
        session.plan.limit = app::PointLimit::Requests;
        // Enough work for the server's CPU to show: /proc counts it in 10 ms ticks, and 400
        // requests cost Redis a few milliseconds.
        session.plan.requestsPerPoint = 20'000;
        session.plan.repetitions = 1;
        session.plan.warmupSeconds = 0;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("redis.loadscope"));
        QVERIFY(app::saveSessionFile(session, path));
        const CliOutcome sweep = runCliProcess(
            {QStringLiteral("sweep"), path, QStringLiteral("--idle-check"), QStringLiteral("0")},
            90'000);
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        const auto saved = app::loadSessionFile(path);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->results.size(), modes.size());
        for (const app::PointResult& result : saved->results) {
            QCOMPARE(result.complete, uint64_t(20'000));
            QCOMPARE(result.failed, uint64_t(0));
            QVERIFY(result.errorReplyCodes.empty());
            QCOMPARE(result.operationCounts.at(QStringLiteral("set")) +
                         result.operationCounts.at(QStringLiteral("get")),
                     uint64_t(20'000));
            QCOMPARE(result.hits + result.misses, result.operationCounts.at(QStringLiteral("get")));
            QVERIFY2(result.environment.labVersions.contains(QStringLiteral("redis ")),
                     qPrintable(result.environment.labVersions));
            QVERIFY2(result.cpu && result.cpu->serverSeconds && *result.cpu->serverSeconds > 0,
                     qPrintable(QStringLiteral("server CPU %1 s")
                                    .arg(result.cpu && result.cpu->serverSeconds
                                             ? *result.cpu->serverSeconds
                                             : -1.0)));
        }
        QVERIFY(labProcesses().empty());
    }

    // The capacity example, one short search per mode, swept by the CLI in a
    // network namespace of its own (unshare -n: whatever it does, it cannot
    // reach the machine's network): every step runs through the lab, in its
    // mode's path, and the report states each mode's capacity at the
    // objective (or why there is none).
    void capacityExampleSearchesThroughTheLab() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const QString unshare = toolPath(QStringLiteral("unshare"));
        if (unshare.isEmpty())
            QSKIP("unshare (util-linux) is not installed");
        QFile file(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                   QStringLiteral("/resources/sessions/lab-nginx-capacity.loadscope"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject session = QJsonDocument::fromJson(file.readAll()).object();
        for (const QJsonValue mode : session.value(u"lab")[u"modes"].toArray())
            if (!m_lab.reasons.at(mode.toString()).isEmpty())
                QSKIP(qPrintable(mode.toString() + QStringLiteral(": ") +
                                 m_lab.reasons.at(mode.toString())));
        if (!m_lab.servers.at(QStringLiteral("nginx")).isEmpty())
            QSKIP(
                qPrintable(QStringLiteral("nginx: ") + m_lab.servers.at(QStringLiteral("nginx"))));
        // One search per mode of a probe and two short steps.
        QJsonObject plan = session.value(u"plan").toObject();
        QJsonObject capacity = plan.value(u"capacity").toObject();
        capacity.insert(QStringLiteral("maxSteps"), 2);
        capacity.insert(QStringLiteral("minStepSeconds"), 0.25);
        capacity.insert(QStringLiteral("maxStepSeconds"), 0.5);
        plan.insert(QStringLiteral("capacity"), capacity);
        plan.insert(QStringLiteral("repetitions"), 1);
        plan.insert(QStringLiteral("warmupSeconds"), 0.1);
        session.insert(QStringLiteral("plan"), plan);
        QTemporaryDir dir;
        QFile small(dir.filePath(QStringLiteral("capacity.loadscope")));
        QVERIFY(small.open(QIODevice::WriteOnly));
        small.write(QJsonDocument(session).toJson());
        small.close();
        const QString out = dir.filePath(QStringLiteral("out.loadscope"));
        const CliOutcome sweep = runProgram(
            unshare,
            {QStringLiteral("-n"), cliPath(), QStringLiteral("sweep"), small.fileName(),
             QStringLiteral("--out"), out, QStringLiteral("--idle-check"), QStringLiteral("0")},
            90'000);
        if (sweep.exitCode != 0 && sweep.err.contains("unshare failed"))
            QSKIP(sweep.err.constData());
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        QFile saved(out);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QJsonArray results =
            QJsonDocument::fromJson(saved.readAll()).object().value(u"results").toArray();
        const QJsonArray targets = session.value(u"targets").toArray();
        QMap<QString, QSet<QString>> pathsByTarget;
        for (const QJsonValue& result : results) {
            QVERIFY(result[u"capacityStep"].toInt() >= 1);
            QVERIFY(result[u"offeredRate"].toDouble() > 0);
            QVERIFY(result[u"complete"].toDouble() > 0);
            pathsByTarget[result[u"target"].toString()].insert(
                result[u"environment"][u"labPath"].toString());
        }
        // Both modes searched, each in its own path.
        QCOMPARE(pathsByTarget.size(), targets.size());
        QSet<QString> paths;
        for (const QSet<QString>& modePaths : std::as_const(pathsByTarget)) {
            QCOMPARE(modePaths.size(), 1);
            paths += modePaths;
        }
        QCOMPARE(paths.size(), targets.size());
        QVERIFY(!paths.contains(QString()));
        const CliOutcome report = runCliProcess({QStringLiteral("report"), out});
        QVERIFY2(report.exitCode == 0, report.err.constData());
        QVERIFY2(report.out.contains("Capacity at p99 \xe2\x89\xa4 5 ms (50 connections; 1 search "
                                     "per target"),
                 report.out.constData());
        QVERIFY2(report.out.contains("host, search 1: ") && report.out.contains("nat, search 1: "),
                 report.out.constData());
        QVERIFY(labProcesses().empty());
    }

private:
    // The examples take a CPU profile of every point, through the lab's agent,
    // with the events the sandbox handed in: the server role's samples come to
    // the CPU the server's own /proc counters give it over the same window
    // (samples of about a millisecond against ticks of 10 ms). Where this
    // machine refuses the events, each point says why. A sidecar's /proc server CPU is the
    // pod's, its proxy's with its server's, where the profile names the proxy a relay: there the
    // two roles together are what /proc counted.
    static void checkProfiles(const QJsonArray& targets, const QJsonArray& results) {
        QSet<QString> pods;
        for (const QJsonValue& target : targets)
            if (target[u"lab"][u"mode"] == QLatin1String("sidecar"))
                pods.insert(target[u"id"].toString());
        for (const QJsonValue& result : results) {
            const QJsonValue profile = result[u"cpuProfile"];
            QVERIFY2(profile.isObject(), QJsonDocument(result.toObject()).toJson().constData());
            if (profile[u"unavailable"].isString()) {
                QVERIFY(!profile[u"unavailable"].toString().isEmpty());
                continue;
            }
            double serverSamples = 0;
            QStringList roles{QStringLiteral("server")};
            if (pods.contains(result[u"target"].toString()))
                roles.append(QStringLiteral("relay"));
            for (const QString& role : roles)
                for (const QJsonValue& samples : profile[u"counts"][role].toObject())
                    serverSamples += samples.toDouble();
            const double profiled = serverSamples * profile[u"periodUs"].toDouble() / 1e6;
            const double counted = result[u"cpu"][u"serverSeconds"].toDouble();
            QVERIFY2(std::abs(profiled - counted) <= 0.3 * counted + 0.03,
                     qPrintable(QStringLiteral("%1: server %2 s by the profile, %3 s by /proc")
                                    .arg(roles.join(QLatin1Char('+')))
                                    .arg(profiled)
                                    .arg(counted)));
        }
    }

    // The sweep as runCliProcess runs it, while the test watches the lab's servers: the agent's
    // environment names them (LOADSCOPE_LAB_SERVER_PIDS, every mode's, as /proc names them),
    // and each one's tree is read every 20 ms (/proc/PID/task/TID/schedstat) until the lab
    // tears it down. `serverTruth`: their run time from the first reading to the last, summed
    // over the servers. A server works for its own points only (and a probe's request), so this
    // is the CPU the points' server figures add up to.
    static CliOutcome sweepWatchingServers(const QStringList& arguments, int timeoutMs,
                                           double& serverTruth) {
        QProcess process;
        process.start(cliPath(), arguments);
        process.closeWriteChannel();
        QElapsedTimer waited;
        waited.start();
        std::vector<int> servers;
        std::map<int, std::pair<double, double>> seen; // server -> first and largest reading
        while (!process.waitForFinished(20)) {
            if (waited.elapsed() > timeoutMs || process.state() == QProcess::NotRunning)
                break;
            if (servers.empty())
                servers = labServerPids(pid_t(process.processId()));
            for (const int pid : servers) {
                if (!QFile::exists(QStringLiteral("/proc/%1/task").arg(pid)))
                    continue;
                const double seconds = test::processTreeRunSeconds(pid);
                const auto [at, added] = seen.try_emplace(pid, seconds, seconds);
                at->second.second = std::max(at->second.second, seconds);
            }
        }
        CliOutcome outcome = outcomeOf(process);
        if (outcome.err == "timed out")
            return outcome;
        if (servers.empty())
            outcome.err += "\nthe test found no lab agent naming the lab's servers";
        for (const auto& [pid, readings] : seen)
            serverTruth += readings.second - readings.first;
        return outcome;
    }

    // The servers the lab agent under `sweep` was told of, or none while it has not started.
    static std::vector<int> labServerPids(pid_t sweep) {
        static const QByteArray kServers("LOADSCOPE_LAB_SERVER_PIDS=");
        for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool numeric = false;
            const pid_t pid = entry.toInt(&numeric);
            if (!numeric)
                continue;
            bool ours = false;
            for (pid_t at = parentOf(pid); at > 1 && !ours; at = parentOf(at))
                ours = at == sweep;
            if (!ours)
                continue;
            for (const QByteArray& variable :
                 fileText(QStringLiteral("/proc/%1/environ").arg(pid)).split('\0')) {
                if (!variable.startsWith(kServers))
                    continue;
                std::vector<int> servers;
                for (const QByteArray& server : variable.mid(kServers.size()).split(','))
                    if (server.toInt() > 0)
                        servers.push_back(server.toInt());
                return servers;
            }
        }
        return {};
    }

    // Every mode's point carries its server's CPU, as the lab reported the server's process: more
    // than nothing, less than all the machine's CPU over the window, and together what the
    // scheduler gave the lab's servers over the sweep (`serverTruth`), within 10 % and a tick a
    // point: /proc's 10 ms ticks round each point's figure, and each server works a few ms
    // outside its point (the probe, the connections' set-up; the points come out 5-10 ms under
    // the truth here). A mode counting a wrong process, only a master that forks, or only the
    // waiter of a container's own PID namespace would take its point's share (a fifth or more)
    // out of the sum.
    static void checkServerCpu(const QJsonArray& results, double serverTruth) {
        double measured = 0;
        for (const QJsonValue& result : results) {
            const QJsonValue cpu = result[u"cpu"];
            QVERIFY2(cpu[u"serverSeconds"].isDouble(),
                     QJsonDocument(result.toObject()).toJson().constData());
            const double server = cpu[u"serverSeconds"].toDouble();
            const double machine = cpu[u"wallSeconds"].toDouble() * cpu[u"cpus"].toDouble();
            QVERIFY2(server > 0 && server < machine,
                     qPrintable(QStringLiteral("%1 s of %2").arg(server).arg(machine)));
            measured += server;
        }
        qInfo("server CPU over the points %.3f s; the scheduler's for the lab's servers %.3f s",
              measured, serverTruth);
        QVERIFY2(serverTruth > 0.2, qPrintable(QString::number(serverTruth)));
        QVERIFY2(std::abs(measured - serverTruth) <= 0.1 * serverTruth + 0.01 * results.size(),
                 qPrintable(QStringLiteral("the points' %1 s, the scheduler's %2 s: off by more "
                                           "than 10 % and 10 ms a point")
                                .arg(measured)
                                .arg(serverTruth)));
    }

    // memcached's keys all of one length (seven digits after the prefix), so that every command
    // and every reply has a size the protocol gives.
    static QJsonArray withKeysOfOneLength(const QJsonValue& targets) {
        QJsonArray changed;
        for (const QJsonValue& target : targets.toArray()) {
            QJsonObject object = target.toObject();
            if (object.contains(u"memcache")) {
                QJsonObject memcache = object.value(u"memcache").toObject();
                memcache.insert(QStringLiteral("keyMinimum"), 1'000'000);
                memcache.insert(QStringLiteral("keyMaximum"), 9'999'999);
                object.insert(QStringLiteral("memcache"), memcache);
            }
            changed.append(object);
        }
        return changed;
    }

    // What each example's server sends, exactly: tcp-rr one byte each way per
    // transaction; nginx and Apache the page they were given as every body, headers beside it;
    // memcached each command's and each reply's text as its protocol spells it (keys of one
    // length, withKeysOfOneLength).
    static void checkExampleBytes(const QJsonObject& target, const QJsonObject& result) {
        const double complete = result[u"complete"].toDouble();
        const QString protocol = target[u"protocol"].toString();
        if (protocol == QLatin1String("tcp-rr")) {
            QCOMPARE(result[u"bytesSent"].toDouble(), complete);
        } else if (protocol == QLatin1String("memcache")) {
            const QJsonValue memcache = target[u"memcache"];
            const double key = memcache[u"keyPrefix"].toString().size() + 7;
            const double value = memcache[u"valueSize"].toDouble();
            const double sets = result[u"operationCounts"][u"set"].toDouble();
            const double gets = result[u"operationCounts"][u"get"].toDouble();
            const double hits = result[u"hits"].toDouble();
            QCOMPARE(sets + gets, complete);
            QCOMPARE(hits + result[u"misses"].toDouble(), gets);
            const double digits = QByteArray::number(qint64(value)).size();
            // "set KEY 0 0 SIZE\r\n" and the value with its CRLF; "get KEY\r\n".
            QCOMPARE(result[u"bytesSent"].toDouble(),
                     sets * (4 + key + 5 + digits + 2 + value + 2) + gets * (4 + key + 2));
            // "STORED\r\n"; "END\r\n" for a miss; "VALUE KEY 0 SIZE\r\n", the value with its
            // CRLF and "END\r\n" for a hit.
            QCOMPARE(result[u"bytesTotal"].toDouble(),
                     sets * 8 + (gets - hits) * 5 + hits * (6 + key + 3 + digits + 2 + value + 7));
        } else if (protocol == QLatin1String("http")) {
            const double page = target[u"lab"][u"serverOptions"][0][u"value"].toString().toDouble();
            QCOMPARE(result[u"bytesBody"].toDouble(), complete * page);
            QVERIFY(result[u"bytesTotal"].toDouble() > result[u"bytesBody"].toDouble());
        }
    }

    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabExamples)
#include "tst_lab_examples.moc"
