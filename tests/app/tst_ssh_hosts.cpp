// Load, server metrics and failures across "hosts" reached with real OpenSSH:
// each host a network namespace this suite builds, with its own sshd, joined
// to the suite's namespace by a veth on a bridge; the suite itself runs in a
// private network namespace and its main proves the machine's own network
// unchanged (private_netns_main.h). The truths: the fixed-delay server's own
// count of the requests it answered and the arrival times it saw, the
// embedded server's /proc, and what is left running on each host afterwards.
#include "app/remote/ssh_command.h"
#include "app/session/cpu_usage.h"
#include "app/session/session.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "engine/cpu_sampler.h"
#include "engine/histogram.h"
#include "fixed_delay_server.h"
#include "private_netns_main.h"
#include "required_here.h"
#include "ssh_test_hosts.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <chrono>
#include <cmath>
#include <memory>

using namespace loadscope;
using app::SweepOutcome;
using testing::SshHostNetwork;
using testing::SshTestKeys;

namespace {

constexpr uint32_t kHubAddressHostOrder = 0x0A4D0001; // 10.77.0.1

QString cli() {
    return qEnvironmentVariable("LOADSCOPE_CLI");
}

app::Host host(const QString& name, const QString& command = cli(),
               const QString& destination = {}) {
    app::Host h;
    h.name = name;
    h.destination = destination.isEmpty() ? name : destination;
    h.command = command;
    return h;
}

// A session of one http target at `url`, loaded from `loadFrom`, one point.
app::Session oneTarget(const QString& url, std::vector<QString> loadFrom, int concurrency,
                       std::vector<app::Host> hosts) {
    app::Session session;
    session.hosts = std::move(hosts);
    app::Target target = app::makeTarget(QStringLiteral("remote"), app::DeploymentMode::Host, 0);
    target.protocol = app::TargetProtocol::Http;
    target.http.url = url;
    target.loadFrom = std::move(loadFrom);
    session.targets.push_back(target);
    session.plan.concurrencyLevels = {concurrency};
    session.plan.repetitions = 1;
    session.plan.threads = 1;
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1;
    return session;
}

// What the points of a sweep left: its one result.
const app::PointResult* onlyResult(const app::SessionDocument& document) {
    const auto& results = document.session().results;
    return results.size() == 1 ? &results.front() : nullptr;
}

engine::Histogram histogramOf(const QByteArray& bytes) {
    auto histogram =
        engine::Histogram::deserialize(std::string_view(bytes.constData(), size_t(bytes.size())));
    return histogram ? *histogram : engine::Histogram();
}

uint64_t processTicks(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    return engine::parseProcessTicks(stat.readAll().toStdString()).value_or(0);
}

// The sweep to its end on a real event loop: QTest::qWait naps 10 ms between
// passes, which would be every ping's round trip.
SweepOutcome runSweep(app::SweepRunner& runner, int timeoutMs, QStringList* status = nullptr) {
    std::optional<SweepOutcome> outcome;
    QEventLoop loop;
    if (status)
        QObject::connect(&runner, &app::SweepRunner::statusChanged, &loop,
                         [status](const QString& line) { status->append(line); });
    QCoro::connect(runner.run(), &loop, [&](const SweepOutcome& ended) {
        outcome = ended;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, [&] {
        runner.cancel();
        QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    });
    if (!outcome)
        loop.exec();
    if (!outcome) {
        SweepOutcome timedOut;
        timedOut.status = SweepOutcome::Status::Failed;
        timedOut.error = QStringLiteral("test: the sweep did not end in time");
        return timedOut;
    }
    return *outcome;
}

} // namespace

class TestSshHosts : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<SshTestKeys> m_keys;
    std::unique_ptr<SshHostNetwork> m_network;
    QString m_skew40;   // runs the agent with its clock 40 ms ahead
    QString m_skew5000; // 5 s ahead
    QString m_oldAgent; // answers hello as an agent of protocol version 1 does

    app::SweepRunner* runnerFor(app::SessionDocument& document) {
        auto* runner = new app::SweepRunner(&document, &document);
        runner->setProbeEnabled(false);
        app::SshOptions ssh;
        ssh.configFile = m_keys->clientConfig();
        runner->setSshOptions(ssh);
        runner->setAgentOpenTimeout(std::chrono::seconds(10));
        return runner;
    }

    QString script(const QString& name, const QByteArray& text) {
        const QString path = m_dir->filePath(name);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(text);
        file.close();
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        return path;
    }

    // Nothing of the sweep is left: no process in any host's namespace but its
    // sshd, no ssh client of this process. Polled for up to 5 s (the agents
    // see their stdin close and end).
    QString leftovers() {
        QStringList left;
        for (int i = 0; i < 250; ++i) {
            left.clear();
            for (const char* name : {"h1", "h2", "hs"})
                left += m_network->leftRunning(QLatin1String(name), {m_serverPid});
            for (const qint64 pid : testing::sshClientsOfThisProcess())
                left << QStringLiteral("ssh client %1: %2")
                            .arg(pid)
                            .arg(testing::commandLineOf(pid));
            if (left.isEmpty())
                return {};
            QTest::qWait(20);
        }
        return left.join(QStringLiteral("; "));
    }

    qint64 m_serverPid = 0; // the embedded server on hs, while a test runs it

private Q_SLOTS:
    void initTestCase() {
        if (const QString why = testing::privateNetnsUnavailable(); !why.isEmpty())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("sandbox"), why);
        if (const QString why = testing::sshdUnavailable(); !why.isEmpty())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("sshd"), why);
        m_dir = std::make_unique<QTemporaryDir>();
        m_keys = std::make_unique<SshTestKeys>(m_dir->path());
        QVERIFY2(m_keys->problem().isEmpty(), qPrintable(m_keys->problem()));
        m_network = std::make_unique<SshHostNetwork>(*m_keys);
        QVERIFY2(m_network->problem().isEmpty(), qPrintable(m_network->problem()));
        QVERIFY2(m_network->addHost(QStringLiteral("h1"), 1), qPrintable(m_network->problem()));
        QVERIFY2(m_network->addHost(QStringLiteral("h2"), 2), qPrintable(m_network->problem()));
        QVERIFY2(m_network->addHost(QStringLiteral("hs"), 3), qPrintable(m_network->problem()));
        // h1 again with a key its sshd does not take; an address nobody has.
        m_keys->addHost(QStringLiteral("stranger"), m_network->address(QStringLiteral("h1")), 22,
                        true);
        m_keys->addHost(QStringLiteral("ghost"), QStringLiteral("10.77.0.99"), 22);
        m_skew40 = script(QStringLiteral("skewed-40"),
                          "#!/bin/sh\nexec \"" + cli().toUtf8() + "\" \"$@\" --clock-skew-ms 40\n");
        m_skew5000 = script(QStringLiteral("skewed-5000"), "#!/bin/sh\nexec \"" + cli().toUtf8() +
                                                               "\" \"$@\" --clock-skew-ms 5000\n");
        // What an agent of the protocol's first version (Loadscope before
        // hosts) answers a hello of version 2 with, byte for byte, then its exit.
        m_oldAgent = script(
            QStringLiteral("loadscope-cli-0.0.9"),
            "#!/bin/sh\nread -r hello\nprintf '%s\\n' "
            "'{\"id\":0,\"message\":\"agent protocol version 2 is not spoken here (this agent "
            "speaks version 1)\",\"type\":\"error\"}'\nexit 2\n");
    }

    // Two hosts load one server, a counted point split over them: the merged
    // count is the server's own, the merged histogram their bucket-wise sum.
    void twoHostsMergeExactly() {
        testing::FixedDelayServer::Options options;
        options.delay = std::chrono::microseconds(200);
        options.address = kHubAddressHostOrder;
        testing::FixedDelayServer server(options);
        QVERIFY(server.isListening());
        app::Session session = oneTarget(QStringLiteral("http://10.77.0.1:%1/").arg(server.port()),
                                         {QStringLiteral("h1"), QStringLiteral("h2")}, 4,
                                         {host(QStringLiteral("h1")), host(QStringLiteral("h2"))});
        session.plan.limit = app::PointLimit::Requests;
        session.plan.requestsPerPoint = 5001; // odd: one host gets one more
        app::SessionDocument document;
        document.reset(session);
        app::SweepRunner* runner = runnerFor(document);
        QElapsedTimer took;
        took.start();
        const SweepOutcome outcome = runSweep(*runner, 60'000);
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        qInfo("two hosts, 5001 requests: %lld ms", took.elapsed());
        const app::PointResult* result = onlyResult(document);
        QVERIFY(result);
        QCOMPARE(result->failed, 0u);
        QCOMPARE(result->complete, server.answered());
        QCOMPARE(result->complete, 5001u);
        QCOMPARE(result->agents.size(), size_t(2));
        const app::PointResult& a = result->agents[0].result.at(0);
        const app::PointResult& b = result->agents[1].result.at(0);
        QCOMPARE(result->agents[0].host, QStringLiteral("h1"));
        QCOMPARE(a.complete + b.complete, 5001u);
        QCOMPARE(a.concurrency + b.concurrency, 4);
        engine::Histogram sum = histogramOf(a.totalHistogram);
        sum.merge(histogramOf(b.totalHistogram));
        const engine::Histogram merged = histogramOf(result->totalHistogram);
        QCOMPARE(merged.count(), 5001u);
        QVERIFY(merged == sum);
        // The common window holds both parts.
        for (const app::AgentShare& share : result->agents) {
            QVERIFY(share.startMs >= 0);
            QVERIFY(share.endMs <= result->durationSeconds * 1000.0 + 1e-6);
            QVERIFY(std::abs(share.clockOffsetMs) < 5);
            QCOMPARE(share.software, QStringLiteral("loadscope " LOADSCOPE_VERSION));
        }
        QVERIFY2(leftovers().isEmpty(), qPrintable(leftovers()));
    }

    // A server far from saturation whose rate is set by its own clock: each
    // connection gets one answer per 25 ms cycle, at its slot on a grid, the
    // 16 connections' slots spread over the cycle. A client that keeps every
    // slot completes 16 / 25 ms = 640 requests a second, one host at 16
    // connections or two at 8 each (Little's law on a cycle no client's
    // wake-ups can stretch): the truth holds by the server's construction,
    // not by two measurements of a busy machine agreeing. (With a plain 25 ms
    // delay every wake-up of a busy machine lengthened each cycle, by more for
    // two agents than for one, and the comparison failed now and then.)
    // A process of a busy machine stalled for a whole cycle lets slots go by
    // unused; the server counts each (missedCycles: late first requests,
    // stalls; not one just before the end), one request fewer in the window,
    // so a run's rate with its missed slots added back is the one the pace
    // sets, whatever stalled. (Seen while others built: once a run, the
    // requests of all 16 connections, of both hosts at once, reached the
    // server together 80-100 ms late; the server's side of the path stalled,
    // for one host as for two, not an agent.) The other condition is that the hosts start
    // together: one 30-60 ms late, seen at a load average of 10 on two cores,
    // widens the common window by 2-4 %, and the product records it (each
    // host's span); a run whose hosts started more than 15 ms apart (1 % of
    // the window) is run again, at most three times, and says so. A wrong
    // merge or split breaks neither condition and fails the comparisons: one
    // host within 2 % of 640/s, the merged rate within 3 % of one host's.
    void mergedRateMatchesOneHostAtTheSameConcurrency() {
        constexpr int kConnections = 16;
        constexpr auto kCycle = std::chrono::milliseconds(25);
        constexpr double kMaxStartSpreadMs = 15;
        constexpr int kAttempts = 4;
        const double truth = kConnections * 1000.0 / double(kCycle.count());
        // One host, two, two, one: a drift of the machine over the four falls
        // on both sides alike.
        double rates[2] = {0, 0};
        for (int run : {0, 1, 1, 0}) {
            QString broken;
            for (int attempt = 1; attempt <= kAttempts; ++attempt) {
                testing::FixedDelayServer::Options options;
                options.delay = std::chrono::nanoseconds(0);
                options.cycle = kCycle;
                options.staggerConnections = kConnections;
                options.address = kHubAddressHostOrder;
                testing::FixedDelayServer server(options);
                QVERIFY(server.isListening());
                const std::vector<QString> from =
                    run == 0 ? std::vector<QString>{QStringLiteral("h1")}
                             : std::vector<QString>{QStringLiteral("h1"), QStringLiteral("h2")};
                app::SessionDocument document;
                app::Session session = oneTarget(
                    QStringLiteral("http://10.77.0.1:%1/").arg(server.port()), from, kConnections,
                    {host(QStringLiteral("h1")), host(QStringLiteral("h2"))});
                session.plan.durationSeconds = 1.5;
                document.reset(session);
                const SweepOutcome outcome = runSweep(*runnerFor(document), 60'000);
                QVERIFY2(outcome.status == SweepOutcome::Status::Completed,
                         qPrintable(outcome.error));
                const app::PointResult* result = onlyResult(document);
                QVERIFY(result);
                QCOMPARE(result->failed, 0u);
                QCOMPARE(result->agents.size(), from.size());
                QVERIFY(result->durationSeconds > 0);
                double spreadMs = 0;
                QString spans;
                for (const app::AgentShare& share : result->agents) {
                    spreadMs = std::max(spreadMs, share.startMs);
                    spans += QStringLiteral(" %1 %2-%3 ms")
                                 .arg(share.host)
                                 .arg(share.startMs, 0, 'f', 1)
                                 .arg(share.endMs, 0, 'f', 1);
                }
                const uint64_t missed = server.missedCycles();
                const double paced =
                    result->requestsPerSecond() + double(missed) / result->durationSeconds;
                qInfo("%s, attempt %d: %.1f req/s over %.4f s, %llu slots missed at the server: "
                      "%.1f req/s paced;%s",
                      run == 0 ? "one host" : "two hosts", attempt, result->requestsPerSecond(),
                      result->durationSeconds, static_cast<unsigned long long>(missed), paced,
                      qPrintable(spans));
                broken.clear();
                if (spreadMs > kMaxStartSpreadMs)
                    broken = QStringLiteral("the hosts started %1 ms apart").arg(spreadMs);
                if (broken.isEmpty()) {
                    rates[run] += paced / 2;
                    break;
                }
                qInfo("run again: %s", qPrintable(broken));
            }
            QVERIFY2(broken.isEmpty(),
                     qPrintable(QStringLiteral("in %1 attempts the hosts never started together; "
                                               "the last: %2")
                                    .arg(kAttempts)
                                    .arg(broken)));
        }
        qInfo("paced, one host at c=16: %.1f req/s; two hosts at 8+8: %.1f req/s (ratio %.4f, "
              "means of two rounds; the server's pace %.1f req/s)",
              rates[0], rates[1], rates[1] / rates[0], truth);
        QVERIFY2(
            std::abs(rates[0] / truth - 1) <= 0.02,
            qPrintable(QStringLiteral("one host %1 vs the server's %2").arg(rates[0]).arg(truth)));
        QVERIFY2(std::abs(rates[1] / rates[0] - 1) <= 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(rates[1]).arg(rates[0])));
    }

    // A host whose clock is 40 ms ahead: its offset is measured and its start
    // told in its own time, so the server sees both hosts' requests over the
    // point's one second, not a second and 40 ms.
    void hostsStartTogetherAcrossAClockOffset() {
        testing::FixedDelayServer::Options options;
        options.delay = std::chrono::milliseconds(1);
        options.address = kHubAddressHostOrder;
        testing::FixedDelayServer server(options);
        QVERIFY(server.isListening());
        app::SessionDocument document;
        document.reset(
            oneTarget(QStringLiteral("http://10.77.0.1:%1/").arg(server.port()),
                      {QStringLiteral("h1"), QStringLiteral("h2")}, 4,
                      {host(QStringLiteral("h1")), host(QStringLiteral("h2"), m_skew40)}));
        const SweepOutcome outcome = runSweep(*runnerFor(document), 60'000);
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        const app::PointResult* result = onlyResult(document);
        QVERIFY(result);
        const app::AgentShare& skewed = result->agents.at(1);
        qInfo("h2's measured offset %.3f ms (+/- %.3f), server saw %.1f ms of arrivals",
              skewed.clockOffsetMs, skewed.clockUncertaintyMs,
              double(server.arrivalSpanNs()) / 1e6);
        QVERIFY2(std::abs(skewed.clockOffsetMs - 40) < 2 + skewed.clockUncertaintyMs,
                 qPrintable(QString::number(skewed.clockOffsetMs)));
        // Each part measured 1 s; together the server saw them for about as
        // long: uncompensated, the skewed host would start 40 ms early.
        const double spanMs = double(server.arrivalSpanNs()) / 1e6;
        QVERIFY2(spanMs < 1000 + 20, qPrintable(QString::number(spanMs)));
        QVERIFY2(
            std::abs(skewed.startMs - result->agents.at(0).startMs) < 10,
            qPrintable(
                QStringLiteral("%1 vs %2").arg(skewed.startMs).arg(result->agents.at(0).startMs)));
    }

    // The embedded server on host hs, loaded from h1: the CPU per request the
    // agent on hs reports is what the server's own /proc counted.
    void remoteServerCpuIsWhatItsProcSays() {
        QProcess server;
        testing::stopWithTest(server);
        const QString hsAddress = m_network->address(QStringLiteral("hs"));
        const QStringList command = m_network->inHost(
            QStringLiteral("hs"),
            {cli(), QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--host"),
             hsAddress, QStringLiteral("--port"), QStringLiteral("8080"),
             QStringLiteral("--threads"), QStringLiteral("1")});
        server.start(command.value(0), command.mid(1));
        QVERIFY(server.waitForReadyRead(5000));
        QVERIFY(server.readLine().startsWith("listening on"));
        m_serverPid = server.processId();
        app::Session session =
            oneTarget(QStringLiteral("http://%1:8080/").arg(hsAddress), {QStringLiteral("h1")}, 16,
                      {host(QStringLiteral("h1")), host(QStringLiteral("hs"))});
        session.targets[0].serverHost = QStringLiteral("hs");
        session.targets[0].serverPid = int(m_serverPid);
        session.plan.durationSeconds = 1.5;
        app::SessionDocument document;
        document.reset(session);
        const uint64_t before = processTicks(m_serverPid);
        QStringList status;
        const SweepOutcome outcome = runSweep(*runnerFor(document), 60'000, &status);
        const uint64_t after = processTicks(m_serverPid);
        server.terminate();
        server.waitForFinished(5000);
        m_serverPid = 0;
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        const app::PointResult* result = onlyResult(document);
        QVERIFY2(result && result->cpu, qPrintable(status.join(QStringLiteral("; "))));
        QCOMPARE(result->cpu->host, QStringLiteral("hs"));
        QVERIFY(result->cpu->clientSecondsHere.has_value());
        const double procUs = double(after - before) /
                              double(engine::CpuSampler::ticksPerSecond()) * 1e6 /
                              double(result->complete - result->failed);
        const std::optional<double> reported = app::serverCpuUsPerRequest(*result);
        QVERIFY(reported);
        qInfo("server CPU per request: reported %.2f us, its /proc %.2f us (%llu requests)",
              *reported, procUs, static_cast<unsigned long long>(result->complete));
        QVERIFY(procUs > 0);
        QVERIFY2(std::abs(*reported / procUs - 1) <= 0.10,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*reported).arg(procUs)));
    }

    // Each failure ends the sweep within 10 s with one line naming the host,
    // and leaves nothing running there or here.
    void failuresAreOneLineNamingTheHost_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("destination");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("expected");
        QTest::newRow("refused key") << "stranger"
                                     << "stranger" << cli() << "Permission denied";
        QTest::newRow("unreachable host") << "ghost"
                                          << "ghost" << cli() << "ssh: connect to host";
        QTest::newRow("loadscope-cli missing")
            << "h1"
            << "h1" << QStringLiteral("/opt/nowhere/loadscope-cli") << "is not installed there";
        QTest::newRow("incompatible version")
            << "h1"
            << "h1" << m_oldAgent << "install the same Loadscope version";
        QTest::newRow("clock too far") << "h1"
                                       << "h1" << m_skew5000 << "ms ahead of this machine's";
    }
    void failuresAreOneLineNamingTheHost() {
        QFETCH(QString, name);
        QFETCH(QString, destination);
        QFETCH(QString, command);
        QFETCH(QString, expected);
        testing::FixedDelayServer::Options options;
        options.address = kHubAddressHostOrder;
        testing::FixedDelayServer server(options);
        app::SessionDocument document;
        document.reset(oneTarget(QStringLiteral("http://10.77.0.1:%1/").arg(server.port()), {name},
                                 2, {host(name, command, destination)}));
        QElapsedTimer took;
        took.start();
        const SweepOutcome outcome = runSweep(*runnerFor(document), 20'000);
        const qint64 ms = took.elapsed();
        qInfo("%s after %lld ms", qPrintable(outcome.error), ms);
        QCOMPARE(int(outcome.status), int(SweepOutcome::Status::Failed));
        QVERIFY2(outcome.error.contains(expected), qPrintable(outcome.error));
        QVERIFY2(outcome.error.contains(QStringLiteral("host '%1'").arg(name)),
                 qPrintable(outcome.error));
        QVERIFY(!outcome.error.contains(QLatin1Char('\n')));
        QVERIFY2(ms < 10'000, qPrintable(QString::number(ms)));
        QCOMPARE(server.answered(), 0u);
        if (expected == QLatin1String("is not installed there"))
            QVERIFY(outcome.error.contains(QStringLiteral("install Loadscope on it")));
        if (expected == QLatin1String("install the same Loadscope version"))
            QVERIFY(outcome.error.contains(QStringLiteral("version 1")));
        QVERIFY2(leftovers().isEmpty(), qPrintable(leftovers()));
    }

    // h2's sshd dies while both hosts load: the point fails within 10 s with
    // one line naming h2, h1's part is kept beside the failure, and no agent
    // is left on either host.
    void sshdStoppedMidRun() {
        testing::FixedDelayServer::Options options;
        options.delay = std::chrono::milliseconds(1);
        options.address = kHubAddressHostOrder;
        testing::FixedDelayServer server(options);
        app::Session session = oneTarget(QStringLiteral("http://10.77.0.1:%1/").arg(server.port()),
                                         {QStringLiteral("h1"), QStringLiteral("h2")}, 4,
                                         {host(QStringLiteral("h1")), host(QStringLiteral("h2"))});
        session.plan.durationSeconds = 30;
        app::SessionDocument document;
        document.reset(session);
        app::SweepRunner* runner = runnerFor(document);
        QSignalSpy started(runner, &app::SweepRunner::pointStarted);
        std::optional<SweepOutcome> outcome;
        QCoro::connect(runner->run(), runner, [&](const SweepOutcome& ended) { outcome = ended; });
        QTRY_VERIFY_WITH_TIMEOUT(started.size() == 1, 20'000);
        QTRY_VERIFY_WITH_TIMEOUT(server.answered() > 100, 10'000);
        QElapsedTimer took;
        took.start();
        m_network->sshd(QStringLiteral("h2")).kill();
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 10'000);
        const qint64 ms = took.elapsed();
        qInfo("%s after %lld ms", qPrintable(outcome->error), ms);
        QCOMPARE(int(outcome->status), int(SweepOutcome::Status::Failed));
        QVERIFY2(outcome->error.contains(QStringLiteral("host 'h2'")), qPrintable(outcome->error));
        QVERIFY(!outcome->error.contains(QLatin1Char('\n')));
        // The others' results are kept: h1's part, beside the failure, in a
        // result that does not count as done.
        const app::PointResult* kept = onlyResult(document);
        QVERIFY(kept);
        QVERIFY(kept->cancelled);
        QCOMPARE(kept->agents.size(), size_t(2));
        QVERIFY(kept->agents[0].error.isEmpty());
        QVERIFY(kept->agents[0].result.at(0).complete > 0);
        QVERIFY(kept->agents[1].error.contains(QStringLiteral("host 'h2'")));
        QVERIFY(app::missingPoints(document.session()).size() == 1);
        QVERIFY2(leftovers().isEmpty(), qPrintable(leftovers()));
    }
};

LOADSCOPE_PRIVATE_NETNS_MAIN(TestSshHosts)
#include "tst_ssh_hosts.moc"
