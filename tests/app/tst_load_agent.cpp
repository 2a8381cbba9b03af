// The load agent as a process (`loadscope-cli lab agent`, started directly on
// loopback, no lab): the counts it returns are the in-process engine's, a
// sweep mixes agent and in-process targets, and an agent that dies or
// refuses ends its point with one line, never a hang.
#include "app/servers/http_server.h"
#include "app/session/session_document.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/sweep_runner.h"
#include "process_tree_cpu.h"
#include "stop_with_test.h"
#include "sweep_test_session.h"
#include "tsan_fork_options.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>
#include <optional>

using namespace loadscope;
using app::SweepOutcome;

namespace {

constexpr int kRequests = 2000;

QString cli() {
    return qEnvironmentVariable("LOADSCOPE_CLI");
}

QStringList agentCommand() {
    return {cli(), QStringLiteral("lab"), QStringLiteral("agent")};
}

template <typename T>
std::optional<T> awaitTask(QCoro::Task<T> task, QObject* context, int timeoutMs = 60'000) {
    std::optional<T> value;
    QCoro::connect(std::move(task), context, [&value](T v) { value = std::move(v); });
    QElapsedTimer waited;
    waited.start();
    while (!value && waited.elapsed() < timeoutMs)
        QTest::qWait(5);
    return value;
}

SweepOutcome runToEnd(app::SweepRunner& runner, int timeoutMs = 60'000) {
    std::optional<SweepOutcome> outcome;
    QCoro::connect(runner.run(), &runner, [&outcome](const SweepOutcome& o) { outcome = o; });
    QElapsedTimer waited;
    waited.start();
    while (!outcome && waited.elapsed() < timeoutMs)
        QTest::qWait(5);
    if (outcome)
        return *outcome;
    runner.cancel();
    for (int i = 0; i < 500 && !outcome; ++i)
        QTest::qWait(10);
    SweepOutcome timedOut;
    timedOut.status = SweepOutcome::Status::Failed;
    timedOut.error = QStringLiteral("test: the sweep did not end in time");
    return timedOut;
}

app::Target labTarget(const QString& name, const QString& url, int index) {
    app::Target target = test::httpTarget(name, app::DeploymentMode::Host, index, url);
    target.lab = app::LabPlacement{QStringLiteral("host"), QStringLiteral("http"), {}};
    return target;
}

app::SweepPlan countedPlan(uint64_t requests, std::vector<int> levels) {
    app::SweepPlan plan;
    plan.concurrencyLevels = std::move(levels);
    plan.limit = app::PointLimit::Requests;
    plan.requestsPerPoint = requests;
    plan.threads = 1;
    plan.repetitions = 1;
    return plan;
}

// One lab target against `url`, alone in a session.
app::Session labSession(const QString& url, app::SweepPlan plan) {
    app::Session session;
    session.targets.push_back(labTarget(QStringLiteral("agent"), url, 0));
    session.plan = std::move(plan);
    return session;
}

app::SweepPlan timedPlan(double seconds) {
    app::SweepPlan plan;
    plan.concurrencyLevels = {2};
    plan.limit = app::PointLimit::Duration;
    plan.durationSeconds = seconds;
    plan.threads = 1;
    plan.repetitions = 1;
    return plan;
}

} // namespace

class TestLoadAgent : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(cli()), "LOADSCOPE_CLI names no loadscope-cli");
        m_server = std::make_unique<app::HttpServer>();
        const auto started = m_server->start();
        QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().toString()));
        m_url = QStringLiteral("http://127.0.0.1:%1/").arg(m_server->port());
    }
    void cleanupTestCase() {
        if (m_server)
            m_server->stop();
    }

    // -n 2000 through the agent: 2000 complete, the server's bytes exactly,
    // as the in-process engine counts them.
    void agentCountsAreTheEngines() {
        const app::Target target =
            test::httpTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 0, m_url);
        const app::SweepPlan plan = countedPlan(kRequests, {4});

        app::AgentClient agent(agentCommand());
        const auto opened = awaitTask(agent.open(std::chrono::seconds(20)), &agent);
        QVERIFY(opened);
        QVERIFY2(opened->ok(), opened->ok() ? "" : qPrintable(opened->error().message));
        QVERIFY(!agent.lab()); // started alone: no lab line
        app::PointRun* viaAgent = agent.newRun({target, plan, 4, 0, false});
        viaAgent->start();
        const auto remote = awaitTask(viaAgent->result(), viaAgent);
        QVERIFY(remote);
        QVERIFY2(remote->ok(), remote->ok() ? "" : qPrintable(remote->error().message));
        delete viaAgent;

        auto draft = app::draftLoadSpec(target, 4, plan);
        QVERIFY(draft.ok());
        draft->spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", m_server->port());
        app::LoadRunBridge inProcess(std::move(draft->spec));
        inProcess.start();
        const auto local = awaitTask(inProcess.result(), &inProcess);
        QVERIFY(local && local->ok());

        const uint64_t responseBytes = m_server->keepAliveResponse().size();
        for (const engine::RunResult* r : {&**remote, &**local}) {
            QCOMPARE(r->complete, uint64_t(kRequests));
            QCOMPARE(r->failed, 0u);
            QCOMPARE(r->total.count(), uint64_t(kRequests));
            QCOMPARE(r->bytesBody, uint64_t(kRequests) * m_server->documentSize());
            QCOMPARE(r->bytesTotal, uint64_t(kRequests) * responseBytes);
            QCOMPARE(r->statusCodes.at(200), uint64_t(kRequests));
            QCOMPARE(r->concurrency, 4u);
        }
        QCOMPARE((*remote)->documentLength, (*local)->documentLength);
        QCOMPARE((*remote)->serverSoftware, (*local)->serverSoftware);

        closeAgent(agent);
    }

    // One lab target through the agent, one in-process: each point's counts
    // are the plan's, and the two agree.
    void sweepMixesAgentAndInProcessTargets() {
        app::Session session;
        session.targets.push_back(labTarget(QStringLiteral("agent"), m_url, 0));
        session.targets.push_back(
            test::httpTarget(QStringLiteral("in-process"), app::DeploymentMode::Host, 1, m_url));
        session.plan = countedPlan(500, {1, 3});
        app::SessionDocument document;
        document.reset(session);
        app::SweepRunner runner(&document);
        runner.setAgentCommand(agentCommand());
        const SweepOutcome outcome = runToEnd(runner);
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        QCOMPARE(outcome.pointsRun, 4);
        const app::Session& done = document.session();
        for (int level : {1, 3}) {
            const app::PointResult* agent = done.findResult(done.targets[0].id, level, 0);
            const app::PointResult* local = done.findResult(done.targets[1].id, level, 0);
            QVERIFY(agent && local);
            for (const app::PointResult* r : {agent, local}) {
                QCOMPARE(r->complete, 500u);
                QCOMPARE(r->failed, 0u);
                QCOMPARE(r->bytesBody, 500u * m_server->documentSize());
            }
            QCOMPARE(agent->bytesTotal, local->bytesTotal);
            QCOMPARE(agent->keepAlive, local->keepAlive);
        }
    }

    // Progress arrives through the agent as from the engine, and stop works.
    void cancelThroughTheAgentKeepsNothing() {
        app::SessionDocument document;
        document.reset(labSession(m_url, timedPlan(30)));
        app::SweepRunner runner(&document);
        runner.setAgentCommand(agentCommand());
        QSignalSpy progress(&runner, &app::SweepRunner::progressAvailable);
        std::optional<SweepOutcome> outcome;
        QCoro::connect(runner.run(), &runner, [&](const SweepOutcome& o) { outcome = o; });
        QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 3, 20'000);
        const auto snapshot =
            progress.constLast().at(1).value<std::shared_ptr<const engine::Progress>>();
        QVERIFY(snapshot && snapshot->complete > 0);
        runner.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 10'000);
        QCOMPARE(int(outcome->status), int(SweepOutcome::Status::Cancelled));
        QVERIFY(document.session().results.empty());
    }

    // SIGKILL mid-point: the point fails with one line and the sweep ends.
    void killedAgentFailsItsPoint() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(QStringLiteral("agent.pid"));
        app::SessionDocument document;
        document.reset(labSession(m_url, timedPlan(30)));
        app::SweepRunner runner(&document);
        // exec keeps the shell's pid: the file names the agent itself.
        runner.setAgentCommand({QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                QStringLiteral("echo $$ > \"$1\"; exec \"$0\" lab agent"), cli(),
                                pidFile});
        QSignalSpy progress(&runner, &app::SweepRunner::progressAvailable);
        QSignalSpy failed(&runner, &app::SweepRunner::pointFailed);
        std::optional<SweepOutcome> outcome;
        QCoro::connect(runner.run(), &runner, [&](const SweepOutcome& o) { outcome = o; });
        QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 2, 20'000);
        QFile file(pidFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const pid_t pid = pid_t(file.readAll().trimmed().toInt());
        QVERIFY(pid > 1);
        QCOMPARE(::kill(pid, SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 10'000);
        QCOMPARE(int(outcome->status), int(SweepOutcome::Status::Failed));
        QCOMPARE(outcome->pointsRun, 0);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(outcome->error.contains(QStringLiteral("the load agent was killed")),
                 qPrintable(outcome->error));
        QVERIFY(!outcome->error.contains(QLatin1Char('\n')));
        QVERIFY(document.session().results.empty());
    }

    // The agent's safety rule, through the process and the sweep.
    void agentRefusesAnAddressOutsideLoopback() {
        app::SessionDocument document;
        document.reset(labSession(QStringLiteral("http://192.0.2.7:8080/"), countedPlan(10, {1})));
        app::SweepRunner runner(&document);
        runner.setAgentCommand(agentCommand());
        const SweepOutcome outcome = runToEnd(runner);
        QCOMPARE(int(outcome.status), int(SweepOutcome::Status::Failed));
        QVERIFY2(outcome.error.contains(QStringLiteral("refusing to send load to 192.0.2.7:8080")),
                 qPrintable(outcome.error));
        QVERIFY2(outcome.error.contains(QStringLiteral("127.0.0.0/8 or ::1")),
                 qPrintable(outcome.error));
    }

    // A stand-in for `lab sandbox`: prints the lab's line, then becomes the
    // agent. The lab target's own URL resolves nowhere; the lab's address is
    // what it is measured at.
    void labLineGivesTheTargetsAddress_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("error"); // empty: completes
        QTest::newRow("built") << "host" << QString();
        QTest::newRow("not built") << "macvlan"
                                   << "the lab did not build mode macvlan";
    }
    void labLineGivesTheTargetsAddress() {
        QFETCH(QString, mode);
        QFETCH(QString, error);
        app::Session session =
            labSession(QStringLiteral("http://lab.invalid/index.html"), countedPlan(300, {2}));
        session.targets[0].lab->mode = mode;
        app::SessionDocument document;
        document.reset(session);
        app::SweepRunner runner(&document);
        const QString line =
            QStringLiteral("{\"lab\":{\"mtu\":1500,\"modes\":[{\"mode\":\"host\",\"label\":"
                           "\"host\",\"address\":\"127.0.0.1\",\"port\":%1,\"path\":\"lo\"}],"
                           "\"versions\":{},\"hostNetns\":1}}")
                .arg(m_server->port());
        runner.setAgentCommand({QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                QStringLiteral("echo \"$1\"; exec \"$0\" lab agent"), cli(), line});
        const SweepOutcome outcome = runToEnd(runner);
        if (!error.isEmpty()) {
            QCOMPARE(int(outcome.status), int(SweepOutcome::Status::Failed));
            QVERIFY2(outcome.error.contains(error), qPrintable(outcome.error));
            return;
        }
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        const app::PointResult* result =
            document.session().findResult(document.session().targets[0].id, 2, 0);
        QVERIFY(result);
        QCOMPARE(result->complete, 300u);
        QCOMPARE(result->bytesBody, 300u * m_server->documentSize());
    }

    // A lab point's server CPU is the process the lab line names, read by the agent: checked
    // against the run time the scheduler gave that process, read by the test around the sweep
    // (/proc/PID/task/TID/schedstat, to the nanosecond). The "lab's" server is a `serve http`
    // process of its own, so that no other CPU is in it, and it works only for requests: outside
    // the point it answers the probe and accepts two connections, some microseconds. The point
    // is long enough (a second or more of the server's CPU at two connections) that the agent's
    // 10 ms ticks are within a few percent of it.
    void labLineServerPidIsTheServersCpu() {
        QProcess server;
        testing::stopWithTest(server);
        server.start(cli(), {QStringLiteral("serve"), QStringLiteral("http"),
                             QStringLiteral("--threads"), QStringLiteral("1")});
        QVERIFY(server.waitForStarted(10'000));
        QTRY_VERIFY_WITH_TIMEOUT(server.canReadLine(), 10'000);
        const QString listening = QString::fromUtf8(server.readLine()).trimmed();
        const QString port = listening.section(QLatin1Char(':'), -1);
        QVERIFY2(port.toInt() > 0, qPrintable(listening));
        const int pid = int(server.processId());
        const QString line =
            QStringLiteral("{\"lab\":{\"mtu\":1500,\"modes\":[{\"mode\":\"host\",\"label\":"
                           "\"host\",\"address\":\"127.0.0.1\",\"port\":%1,\"path\":\"lo\","
                           "\"serverPid\":%2}],\"versions\":{},\"hostNetns\":1}}")
                .arg(port)
                .arg(pid);
        app::SessionDocument document;
        document.reset(labSession(QStringLiteral("http://lab.invalid/"), timedPlan(1.5)));
        app::SweepRunner runner(&document);
        runner.setIdleCheckSeconds(0);
        runner.setAgentCommand({QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                QStringLiteral("echo \"$1\"; exec \"$0\" lab agent"), cli(), line});
        const double before = test::processTreeRunSeconds(pid);
        const SweepOutcome outcome = runToEnd(runner);
        const double truth = test::processTreeRunSeconds(pid) - before;
        server.terminate();
        QVERIFY(server.waitForFinished(10'000));
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        const app::PointResult& result = document.session().results.front();
        QVERIFY(result.complete > 100);
        QVERIFY(result.cpu && result.cpu->serverSeconds);
        const double measured = *result.cpu->serverSeconds;
        qInfo("server CPU: the agent's %.3f s over the point, the scheduler's %.3f s around the "
              "sweep",
              measured, truth);
        QVERIFY2(truth > 0.3, qPrintable(QString::number(truth)));
        const QString off =
            test::offTheSchedulersRunTime(QStringLiteral("the agent's"), measured, truth);
        QVERIFY2(off.isEmpty(), qPrintable(off));
    }

    void agentThatCannotStartFailsTheSweep() {
        app::SessionDocument document;
        document.reset(labSession(m_url, countedPlan(10, {1})));
        app::SweepRunner runner(&document);
        runner.setAgentCommand({QStringLiteral("/nonexistent/loadscope-cli")});
        const SweepOutcome outcome = runToEnd(runner);
        QCOMPARE(int(outcome.status), int(SweepOutcome::Status::Failed));
        QVERIFY2(
            outcome.error.startsWith(QStringLiteral("lab: the load agent could not be started")),
            qPrintable(outcome.error));
    }

private:
    void closeAgent(app::AgentClient& agent) {
        bool closed = false;
        QCoro::connect(agent.close(), &agent, [&closed] { closed = true; });
        QTRY_VERIFY_WITH_TIMEOUT(closed, 10'000);
    }

    std::unique_ptr<app::HttpServer> m_server;
    QString m_url;
};

QTEST_GUILESS_MAIN(TestLoadAgent)
#include "tst_load_agent.moc"
