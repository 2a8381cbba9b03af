// SweepRunner with targets that fail (a configuration error, a refused port
// with and without the probe) and with the other protocols' targets (tcp-rr
// against the echo server, memcached with its preload). The sweep's course is
// tst_sweep_runner's.
#include "app/servers/echo_server.h"
#include "app/session/session_document.h"
#include "app/session/target_rules.h"
#include "app/sweep/sweep_runner.h"
#include "local_peers.h"
#include "process_tree_cpu.h"
#include "sweep_run_to_end.h"
#include "sweep_test_session.h"
#include "tsan_fork_options.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <csignal>
#include <unistd.h>

using namespace loadscope;
using app::SweepOutcome;
using app::SweepPoint;
using test::runToEnd;

namespace {

// `target` alone at `levels`, `requests` requests a point, one engine thread, one repetition.
app::Session oneTargetSession(const app::Target& target, std::vector<int> levels,
                              uint64_t requests) {
    app::Session session;
    session.targets.push_back(target);
    session.plan.concurrencyLevels = std::move(levels);
    session.plan.limit = app::PointLimit::Requests;
    session.plan.requestsPerPoint = requests;
    session.plan.threads = 1;
    session.plan.repetitions = 1;
    return session;
}

// Duration-limited: the given process's CPU needs time to show. A second and a half gives the
// server half a second of CPU or more, which /proc's 10 ms ticks round by a few percent.
app::Session timedSession(std::vector<app::Target> targets) {
    app::Session session;
    session.targets = std::move(targets);
    session.plan.concurrencyLevels = {2};
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1.5;
    session.plan.warmupSeconds = 0;
    session.plan.threads = 1;
    session.plan.repetitions = 1;
    return session;
}

} // namespace

class TestSweepTargets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void configurationErrorFailsBeforeAnyPoint_data();
    void configurationErrorFailsBeforeAnyPoint();
    void refusedTargetFailsItsProbe();
    void refusedTargetWithoutProbeFailsItsPoint();
    void tcpRrTargetAgainstEchoServer();
    void memcacheTargetWithPreload();
    void givenServerPidIsTheServersCpu();
    void absentServerPidIsAWarning();

private:
    std::unique_ptr<test::HttpPair> m_servers;
};

void TestSweepTargets::initTestCase() {
    m_servers = std::make_unique<test::HttpPair>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestSweepTargets::cleanupTestCase() {
    m_servers.reset();
}

void TestSweepTargets::configurationErrorFailsBeforeAnyPoint_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("bodyFile");
    QTest::addColumn<QString>("expected");
    QTest::newRow("ftp") << QStringLiteral("ftp://127.0.0.1/") << QString()
                         << QStringLiteral("ftp");
    QTest::newRow("not a URL") << QStringLiteral("127.0.0.1 slash") << QString()
                               << QStringLiteral("127.0.0.1");
    QTest::newRow("missing body file") << QString() << QStringLiteral("/nonexistent/body.json")
                                       << QStringLiteral("cannot read body file");
}

void TestSweepTargets::configurationErrorFailsBeforeAnyPoint() {
    QFETCH(QString, url);
    QFETCH(QString, bodyFile);
    QFETCH(QString, expected);
    app::Session session = test::directVsProxy(*m_servers);
    app::Target& broken = session.targets[1];
    if (!url.isEmpty())
        broken.http.url = url;
    broken.address.clear();
    broken.http.bodyFile = bodyFile;
    broken.http.method = bodyFile.isEmpty() ? QStringLiteral("GET") : QStringLiteral("POST");
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);

    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY(outcome.status == SweepOutcome::Status::Failed);
    QVERIFY(!outcome.unreachable);
    QVERIFY2(outcome.error.startsWith(QStringLiteral("target 'proxy': ")),
             qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(expected), qPrintable(outcome.error));
    QVERIFY(!outcome.error.contains(QLatin1Char('\n')));
    QCOMPARE(started.size(), 0);
    QVERIFY(document.session().results.empty());
}

void TestSweepTargets::refusedTargetFailsItsProbe() {
    app::Session session = test::directVsProxy(*m_servers);
    session.targets[1].address = QStringLiteral("127.0.0.1:%1").arg(test::refusedPort());
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    const SweepOutcome outcome = runToEnd(runner, 20'000);
    QVERIFY(outcome.status == SweepOutcome::Status::Failed);
    QVERIFY(outcome.unreachable);
    QVERIFY2(outcome.error.startsWith(QStringLiteral("target 'proxy'")), qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(QStringLiteral("refused")), qPrintable(outcome.error));
    QCOMPARE(started.size(), 0);
}

void TestSweepTargets::refusedTargetWithoutProbeFailsItsPoint() {
    app::Session session = test::directVsProxy(*m_servers);
    session.targets[1].address = QStringLiteral("127.0.0.1:%1").arg(test::refusedPort());
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QSignalSpy pointFailed(&runner, &app::SweepRunner::pointFailed);
    const SweepOutcome outcome = runToEnd(runner, 60'000);
    QVERIFY(outcome.status == SweepOutcome::Status::Failed);
    QVERIFY(outcome.unreachable);
    QCOMPARE(outcome.pointsRun, 1); // direct's first point, before proxy's
    QCOMPARE(outcome.pointsFailed, 1);
    QCOMPARE(pointFailed.size(), 1);
    QCOMPARE(pointFailed.first().at(0).value<SweepPoint>().index, 1);
    QVERIFY2(outcome.error.startsWith(QStringLiteral("target 'proxy' at concurrency 1: ")),
             qPrintable(outcome.error));
    QCOMPARE(document.session().results.size(), size_t(1));
}

void TestSweepTargets::tcpRrTargetAgainstEchoServer() {
    app::EchoServerConfig config;
    config.requestSize = 16;
    config.responseSize = 64;
    app::EchoServer echo(config);
    const auto started = echo.start();
    QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));

    app::Target target = app::makeTarget(QStringLiteral("echo"), app::DeploymentMode::Host, 0);
    target.protocol = app::TargetProtocol::TcpRr;
    target.address = QStringLiteral("127.0.0.1:%1").arg(echo.port());
    target.tcpRr.requestSize = 16;
    target.tcpRr.responseSize = 64;
    app::SessionDocument document;
    document.reset(oneTargetSession(target, {2}, 500));
    app::SweepRunner runner(&document);
    const SweepOutcome outcome = runToEnd(runner);
    echo.stop();
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    const app::PointResult& result = document.session().results.front();
    QCOMPARE(result.complete, uint64_t(500));
    QCOMPARE(result.failed, uint64_t(0));
    QCOMPARE(result.bytesSent, uint64_t(500 * 16));
    QCOMPARE(result.bytesTotal, uint64_t(500 * 64));
}

void TestSweepTargets::memcacheTargetWithPreload() {
    testing::MemcachedPeer memcached;
    if (!memcached.isRunning())
        QSKIP(qPrintable(QStringLiteral("no memcached: ") + memcached.error()));
    app::Target target = app::makeTarget(QStringLiteral("memcached"), app::DeploymentMode::Host, 0);
    target.protocol = app::TargetProtocol::Memcache;
    target.address = QStringLiteral("127.0.0.1:%1").arg(memcached.port());
    target.memcache.keyMinimum = 1;
    target.memcache.keyMaximum = 2000;
    target.memcache.preload = true;
    target.memcache.setRatio = 0;
    target.memcache.getRatio = 1;
    app::SessionDocument document;
    document.reset(oneTargetSession(target, {1, 2}, 400));
    app::SweepRunner runner(&document);
    QSignalSpy probed(&runner, &app::SweepRunner::probeFinished);
    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QVERIFY(probed.first().at(1).value<app::ProbeResult>().serverSoftware.startsWith(
        QStringLiteral("memcached ")));

    // Preloaded once (2000 sets, not twice that) and every key of the range
    // exactly once, so every get of the measured points hits.
    const auto stats = memcached.stats();
    QCOMPARE(stats.value(QStringLiteral("cmd_set")), qint64(2000));
    QCOMPARE(stats.value(QStringLiteral("curr_items")), qint64(2000));
    QCOMPARE(document.session().results.size(), size_t(2));
    for (const app::PointResult& result : document.session().results) {
        QCOMPARE(result.complete, uint64_t(400));
        QCOMPARE(result.hits, uint64_t(400));
        QCOMPARE(result.misses, uint64_t(0));
    }
}

// A target that names its server's process: the sweep reads that process and its children,
// not the port's listener. The in-process server's port leads to no process (it is the test's
// own), so a second target without the field has no server figure; the named one, a shell
// whose child is the server as a master's worker is, has the run time the scheduler gave the
// tree (/proc/PID/task/TID/schedstat, to the nanosecond) around the sweep. The worker works only
// for requests and the shell not at all, so outside the named point the tree is idle.
void TestSweepTargets::givenServerPidIsTheServersCpu() {
    QProcess master;
    // A group of its own, which the test kills whole; bounded by timeout(1) should the test
    // die first (--foreground: in the shell's group).
    master.setChildProcessModifier([] { setpgid(0, 0); });
    master.start(QStringLiteral("sh"),
                 {QStringLiteral("-c"),
                  QStringLiteral("timeout --foreground 60 \"$0\" serve http --threads 1 & wait"),
                  qEnvironmentVariable("LOADSCOPE_CLI")});
    QVERIFY(master.waitForStarted(5000));
    const int pid = int(master.processId());
    QTRY_VERIFY_WITH_TIMEOUT(master.canReadLine(), 10'000); // the worker listens
    const QString listening = QString::fromUtf8(master.readLine()).trimmed();
    const int port = listening.section(QLatin1Char(':'), -1).toInt();
    QVERIFY2(port > 0, qPrintable(listening));
    app::Target named = test::httpTarget(QStringLiteral("named"), app::DeploymentMode::Host, 0,
                                         QStringLiteral("http://127.0.0.1:%1/").arg(port));
    named.serverPid = pid;
    const app::Target unnamed = test::httpTarget(
        QStringLiteral("unnamed"), app::DeploymentMode::ContainerNat, 1, m_servers->url());
    app::SessionDocument document;
    document.reset(timedSession({named, unnamed}));
    app::SweepRunner runner(&document);
    runner.setIdleCheckSeconds(0);
    runner.setProbeEnabled(false);
    const double before = test::processTreeRunSeconds(pid);
    const SweepOutcome outcome = runToEnd(runner);
    const double truth = test::processTreeRunSeconds(pid) - before;
    ::kill(-pid, SIGKILL);
    master.waitForFinished(5000);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QCOMPARE(document.session().results.size(), size_t(2));
    for (const app::PointResult& result : document.session().results) {
        QVERIFY(result.cpu);
        if (result.targetId == unnamed.id) {
            QVERIFY(!result.cpu->serverSeconds);
            continue;
        }
        QVERIFY(result.complete > 100);
        QVERIFY(result.cpu->serverSeconds);
        const double measured = *result.cpu->serverSeconds;
        qInfo("server CPU over the point %.3f s; the scheduler's for the tree around the sweep "
              "%.3f s",
              measured, truth);
        // /proc's utime + stime come in 10 ms ticks: a point of a second or more of the
        // worker's CPU keeps their rounding within a few percent.
        QVERIFY2(truth > 0.3, qPrintable(QString::number(truth)));
        const QString off =
            test::offTheSchedulersRunTime(QStringLiteral("the sweep's"), measured, truth);
        QVERIFY2(off.isEmpty(), qPrintable(off));
    }
}

// A named process that does not run costs the figure, not the sweep: one line says so.
void TestSweepTargets::absentServerPidIsAWarning() {
    app::Target target =
        test::httpTarget(QStringLiteral("gone"), app::DeploymentMode::Host, 0, m_servers->url());
    target.serverPid = app::kMaxPid; // above /proc/sys/kernel/pid_max on any usual machine
    QVERIFY(!QFile::exists(QStringLiteral("/proc/%1").arg(target.serverPid)));
    app::SessionDocument document;
    document.reset(oneTargetSession(target, {1}, 50));
    app::SweepRunner runner(&document);
    runner.setIdleCheckSeconds(0);
    QSignalSpy status(&runner, &app::SweepRunner::statusChanged);
    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QStringList warnings;
    for (const QList<QVariant>& signal : status)
        if (signal.at(0).toString().contains(QStringLiteral("does not run here")))
            warnings.append(signal.at(0).toString());
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings.first().contains(QStringLiteral("gone")), qPrintable(warnings.first()));
    const app::PointResult& result = document.session().results.front();
    QCOMPARE(result.complete, uint64_t(50));
    QVERIFY(!result.cpu || !result.cpu->serverSeconds);
}

QTEST_GUILESS_MAIN(TestSweepTargets)
#include "tst_sweep_targets.moc"
