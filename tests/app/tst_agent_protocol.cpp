// The load agent protocol without a process: every message round-trips,
// a malformed line or a foreign version is refused in one line, and the
// agent refuses to send load where its safety rule forbids.
#include "app/agent/agent_protocol.h"
#include "app/agent/agent_safety.h"
#include "app/agent/lab_info.h"
#include "app/agent/load_agent.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <chrono>
#include <cmath>
#include <sys/resource.h>

using namespace loadscope;
using app::AgentMessage;

namespace {

// /proc/self/net/route's first line, naming its columns.
const QByteArray kRouteHeader = QByteArrayLiteral(
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n");

engine::Histogram histogramOf(std::initializer_list<int64_t> values) {
    engine::Histogram histogram;
    for (int64_t value : values)
        histogram.record(value);
    return histogram;
}

// A distribution no other histogram of the result has: values spread over several
// magnitudes, some of them recorded many times, all shifted by `offset` ns.
engine::Histogram distinctHistogram(int64_t offset) {
    engine::Histogram histogram;
    int64_t value = 1000 + offset;
    for (uint64_t times = 1; times <= 12; ++times, value = value * 3 + 7)
        histogram.recordN(value, times);
    return histogram;
}

// Every field set to a value no default has.
engine::RunResult fullResult() {
    engine::RunResult r;
    r.complete = 2000;
    r.failed = 7;
    for (size_t i = 0; i < engine::kErrorClassCount; ++i)
        r.errors[i] = i + 1;
    r.non2xx = 3;
    r.keepAlive = 1990;
    r.connectionsOpened = 11;
    r.statusCodes = {{200, 1990}, {404, 3}};
    r.errorReplyCodes = {{"ERR", 17}, {"WRONGTYPE", 18}};
    r.bytesTotal = 123456789;
    r.bytesBody = 98765432;
    r.bytesSent = 555555;
    r.durationSeconds = 1.25;
    r.concurrency = 4;
    r.threads = 2;
    r.serverSoftware = "loadscope-http";
    r.documentLength = 4897;
    r.firstError = "connection reset by peer";
    r.total = distinctHistogram(1);
    r.connect = distinctHistogram(2);
    r.waiting = distinctHistogram(3);
    r.processing = distinctHistogram(4);
    r.uncorrected = distinctHistogram(5);
    r.offeredRate = 5000;
    r.maxBacklog = 9;
    r.clientSaturated = true;
    r.tls = distinctHistogram(6);
    r.tlsHandshakes = 2;
    r.tlsResumed = 1;
    r.tlsProtocol = "TLSv1.3";
    r.tlsCipher = "TLS_AES_256_GCM_SHA384";
    r.cpu.valid = true;
    r.cpu.wallSeconds = 2.5;
    r.cpu.cpus = 2;
    r.cpu.user = 1.25;
    r.cpu.system = 0.5;
    r.cpu.irq = 0.01;
    r.cpu.softirq = 0.25;
    r.cpu.steal = 0.125;
    r.cpu.idle = 2.99;
    r.cpu.serverCpuSeconds = 0.75;
    r.cpu.frequencyChanged = true;
    r.cpu.minFrequencyKHz = 800000;
    r.cpu.maxFrequencyKHz = 3400000;
    r.cpu.busyPerCpu = {1.0, 1.01};
    r.cpu.softirqThreadSeconds = 0.03;
    r.cpu.interruptsInProcessTimes = true;
    // Two namespaces, every counter a different figure.
    r.net.valid = true;
    engine::NetNamespaceSample client;
    client.roles = {engine::NetRole::Client};
    client.id = 4026532001;
    client.valid = true;
    client.counters = {1, 2, 3, 4, 5, 6, 7, true, 8, 9, 10, 11, {{"wire0", 12, 13}}};
    engine::NetNamespaceSample host = client;
    host.roles = {engine::NetRole::Server, engine::NetRole::ServerHost};
    host.id = 4026532002;
    host.counters.conntrack = false;
    host.counters.links.clear();
    host.counters.tcpRetransmits = 14;
    r.net.namespaces = {client, host};
    r.net.softnet = engine::SoftnetCounters{15, 16};
    engine::OperationStats get;
    get.name = "get";
    get.count = 100;
    get.hits = 60;
    get.misses = 40;
    get.bytesReceived = 4000;
    get.latency = distinctHistogram(7);
    r.operations.push_back(get);
    engine::OperationStats set;
    set.name = "set";
    set.count = 55;
    set.bytesReceived = 440;
    set.latency = distinctHistogram(8);
    r.operations.push_back(set);
    r.hits = 60;
    r.misses = 40;
    r.threadCpus = {2, 3};
    r.pinned = true;
    r.clientCpuSeconds = 0.75;
    r.streamsStalled = 1;
    r.answersDuplicate = 19;
    r.answersLate = 20;
    r.answersStray = 21;
    r.answersOutOfOrder = 22;
    r.datagramsSent = 23;
    r.sendErrors = 24;
    r.sinkReports = 25;
    r.sinkDatagrams = 26;
    r.sinkBytes = 27;
    r.sinkOutOfOrder = 28;
    r.sinkDuplicates = 29;
    r.cancelled = true;
    r.unreachable = true;
    return r;
}

// The whole distribution: its exact figures, and every step of the percentile walk, which
// visits each bucket that holds a count (so a bucket lost or moved shows).
void compareHistograms(const engine::Histogram& got, const engine::Histogram& want) {
    QVERIFY(want.count() > 0);
    QCOMPARE(got.count(), want.count());
    QCOMPARE(got.min(), want.min());
    QCOMPARE(got.max(), want.max());
    QCOMPARE(got.mean(), want.mean());
    QCOMPARE(got.stddev(), want.stddev());
    const auto gotSteps = got.percentileDistribution(1000);
    const auto wantSteps = want.percentileDistribution(1000);
    QCOMPARE(gotSteps.size(), wantSteps.size());
    for (size_t i = 0; i < gotSteps.size(); ++i) {
        QCOMPARE(gotSteps[i].valueNs, wantSteps[i].valueNs);
        QCOMPARE(gotSteps[i].percentile, wantSteps[i].percentile);
        QCOMPARE(gotSteps[i].totalCount, wantSteps[i].totalCount);
    }
    for (double percentile = 0; percentile <= 100; percentile += 0.25)
        QCOMPARE(got.valueAtPercentile(percentile), want.valueAtPercentile(percentile));
}

AgentMessage decoded(const QByteArray& line) {
    auto message = app::decodeAgentMessage(line);
    if (!message)
        qWarning("%s", qPrintable(message.error().message));
    return message ? *message : AgentMessage{};
}

QByteArray helloLine(int protocol) {
    AgentMessage hello = app::agentHello();
    hello.protocol = protocol;
    return app::encodeAgentMessage(hello);
}

engine::SocketAddress numeric(const char* host) {
    return *engine::SocketAddress::fromNumeric(host, 80);
}

// An agent that writes into a list; its lines decoded.
struct AgentUnderTest {
    QList<QByteArray> lines;
    app::LoadAgent agent;
    explicit AgentUnderTest(app::AgentEnvironment env = {})
        : agent([this](const QByteArray& line) { lines << line; }, std::move(env)) {}
    AgentMessage last() const { return decoded(lines.constLast()); }
};

// The agent's rule on ADDRESS in ENV: taken when REFUSAL is empty, else
// refused in a message that holds REFUSAL and names the address.
void verifyAgentTarget(const QString& address, const app::AgentEnvironment& env,
                       const QString& refusal) {
    const auto checked = app::checkAgentTarget(numeric(address.toLatin1().constData()), env);
    if (refusal.isEmpty()) {
        QVERIFY2(checked.ok(), checked.ok() ? "" : qPrintable(checked.error().message));
        return;
    }
    QVERIFY(!checked);
    QVERIFY2(checked.error().message.contains(refusal), qPrintable(checked.error().message));
    QVERIFY(checked.error().message.contains(address));
}

} // namespace

class TestAgentProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runResultRoundTripsWhole() {
        const engine::RunResult sent = fullResult();
        AgentMessage m;
        m.type = AgentMessage::Type::Result;
        m.id = 42;
        m.measuredFromUs = 1'700'000'123'456'789; // the run's start, told beside the result
        m.result = std::make_shared<const engine::RunResult>(sent);
        const QByteArray line = app::encodeAgentMessage(m);
        QVERIFY(line.endsWith('\n'));
        QCOMPARE(line.count('\n'), 1);
        const AgentMessage back = decoded(line);
        QCOMPARE(int(back.type), int(AgentMessage::Type::Result));
        QCOMPARE(back.id, 42u);
        QCOMPARE(back.measuredFromUs, m.measuredFromUs);
        QVERIFY(back.result);
        const engine::RunResult& r = *back.result;
        QCOMPARE(r.complete, sent.complete);
        QCOMPARE(r.failed, sent.failed);
        QVERIFY(r.errors == sent.errors);
        QCOMPARE(r.non2xx, sent.non2xx);
        QCOMPARE(r.keepAlive, sent.keepAlive);
        QCOMPARE(r.connectionsOpened, sent.connectionsOpened);
        QVERIFY(r.statusCodes == sent.statusCodes);
        QVERIFY(r.errorReplyCodes == sent.errorReplyCodes);
        QCOMPARE(r.bytesTotal, sent.bytesTotal);
        QCOMPARE(r.bytesBody, sent.bytesBody);
        QCOMPARE(r.bytesSent, sent.bytesSent);
        QCOMPARE(r.durationSeconds, sent.durationSeconds);
        QCOMPARE(r.concurrency, sent.concurrency);
        QCOMPARE(r.threads, sent.threads);
        QCOMPARE(r.serverSoftware, sent.serverSoftware);
        QCOMPARE(r.documentLength, sent.documentLength);
        QCOMPARE(r.firstError, sent.firstError);
        compareHistograms(r.total, sent.total);
        compareHistograms(r.connect, sent.connect);
        compareHistograms(r.waiting, sent.waiting);
        compareHistograms(r.processing, sent.processing);
        compareHistograms(r.uncorrected, sent.uncorrected);
        QCOMPARE(r.offeredRate, sent.offeredRate);
        QCOMPARE(r.maxBacklog, sent.maxBacklog);
        QCOMPARE(r.clientSaturated, sent.clientSaturated);
        compareHistograms(r.tls, sent.tls);
        QCOMPARE(r.tlsHandshakes, sent.tlsHandshakes);
        QCOMPARE(r.tlsResumed, sent.tlsResumed);
        QCOMPARE(r.tlsProtocol, sent.tlsProtocol);
        QCOMPARE(r.tlsCipher, sent.tlsCipher);
        QVERIFY(r.cpu.valid);
        QCOMPARE(r.cpu.wallSeconds, sent.cpu.wallSeconds);
        QCOMPARE(r.cpu.cpus, sent.cpu.cpus);
        QCOMPARE(r.cpu.user, sent.cpu.user);
        QCOMPARE(r.cpu.system, sent.cpu.system);
        QCOMPARE(r.cpu.irq, sent.cpu.irq);
        QCOMPARE(r.cpu.softirq, sent.cpu.softirq);
        QCOMPARE(r.cpu.steal, sent.cpu.steal);
        QCOMPARE(r.cpu.idle, sent.cpu.idle);
        QCOMPARE(r.cpu.serverCpuSeconds, sent.cpu.serverCpuSeconds);
        QCOMPARE(r.cpu.frequencyChanged, sent.cpu.frequencyChanged);
        QCOMPARE(r.cpu.minFrequencyKHz, sent.cpu.minFrequencyKHz);
        QCOMPARE(r.cpu.maxFrequencyKHz, sent.cpu.maxFrequencyKHz);
        QCOMPARE(r.cpu.busyPerCpu, sent.cpu.busyPerCpu);
        QCOMPARE(r.cpu.softirqThreadSeconds, sent.cpu.softirqThreadSeconds);
        QCOMPARE(r.cpu.interruptsInProcessTimes, sent.cpu.interruptsInProcessTimes);
        QVERIFY(r.net.valid);
        QCOMPARE(r.net.namespaces.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const engine::NetNamespaceSample& got = r.net.namespaces[i];
            const engine::NetNamespaceSample& want = sent.net.namespaces[i];
            QVERIFY(got.roles == want.roles);
            QCOMPARE(got.id, want.id);
            QCOMPARE(got.valid, want.valid);
            const engine::NetCounters& g = got.counters;
            const engine::NetCounters& w = want.counters;
            QCOMPARE(g.tcpRetransmits, w.tcpRetransmits);
            QCOMPARE(g.synRetransmits, w.synRetransmits);
            QCOMPARE(g.listenOverflows, w.listenOverflows);
            QCOMPARE(g.listenDrops, w.listenDrops);
            QCOMPARE(g.tcpTimeouts, w.tcpTimeouts);
            QCOMPARE(g.resetsSent, w.resetsSent);
            QCOMPARE(g.establishedResets, w.establishedResets);
            QCOMPARE(g.conntrack, w.conntrack);
            QCOMPARE(g.conntrackInsertFailed, w.conntrackInsertFailed);
            QCOMPARE(g.conntrackDrop, w.conntrackDrop);
            QCOMPARE(g.conntrackEarlyDrop, w.conntrackEarlyDrop);
            QCOMPARE(g.conntrackInvalid, w.conntrackInvalid);
            QCOMPARE(g.links.size(), w.links.size());
            for (size_t l = 0; l < g.links.size(); ++l) {
                QCOMPARE(g.links[l].name, w.links[l].name);
                QCOMPARE(g.links[l].received, w.links[l].received);
                QCOMPARE(g.links[l].sent, w.links[l].sent);
            }
        }
        QVERIFY(r.net.softnet);
        QCOMPARE(r.net.softnet->dropped, uint64_t(15));
        QCOMPARE(r.net.softnet->timeSqueeze, uint64_t(16));
        QCOMPARE(r.operations.size(), sent.operations.size());
        for (size_t i = 0; i < r.operations.size(); ++i) {
            const engine::OperationStats& got = r.operations[i];
            const engine::OperationStats& want = sent.operations[i];
            QCOMPARE(got.name, want.name);
            QCOMPARE(got.count, want.count);
            QCOMPARE(got.hits, want.hits);
            QCOMPARE(got.misses, want.misses);
            QCOMPARE(got.bytesReceived, want.bytesReceived);
            compareHistograms(got.latency, want.latency);
        }
        QCOMPARE(r.hits, sent.hits);
        QCOMPARE(r.misses, sent.misses);
        QVERIFY(r.threadCpus == sent.threadCpus);
        QCOMPARE(r.pinned, sent.pinned);
        QCOMPARE(r.clientCpuSeconds, sent.clientCpuSeconds);
        QCOMPARE(r.streamsStalled, sent.streamsStalled);
        QCOMPARE(r.answersDuplicate, sent.answersDuplicate);
        QCOMPARE(r.answersLate, sent.answersLate);
        QCOMPARE(r.answersStray, sent.answersStray);
        QCOMPARE(r.answersOutOfOrder, sent.answersOutOfOrder);
        QCOMPARE(r.datagramsSent, sent.datagramsSent);
        QCOMPARE(r.sendErrors, sent.sendErrors);
        QCOMPARE(r.sinkReports, sent.sinkReports);
        QCOMPARE(r.sinkDatagrams, sent.sinkDatagrams);
        QCOMPARE(r.sinkBytes, sent.sinkBytes);
        QCOMPARE(r.sinkOutOfOrder, sent.sinkOutOfOrder);
        QCOMPARE(r.sinkDuplicates, sent.sinkDuplicates);
        QCOMPARE(r.cancelled, sent.cancelled);
        QCOMPARE(r.unreachable, sent.unreachable);
    }

    // A profile crosses the protocol whole: its counts by role and path, its
    // chains, its samples; a refused one its reason; none, nothing.
    void profileRoundTripsWhole() {
        engine::RunResult sent;
        engine::CpuProfile& p = sent.profile;
        p.requested = true;
        p.note = "kernel symbols are hidden";
        p.cpus = 2;
        p.periodNs = 1'003'009;
        p.samples = 4000;
        p.idleSamples = 30;
        p.lostSamples = 2;
        p.profilerSamples = 1;
        p.samplerCpuSeconds = 0.0025;
        p.counts[size_t(engine::ProcessRole::Relay)][size_t(engine::CpuPath::Copy)] = 77;
        p.counts[size_t(engine::ProcessRole::Server)][size_t(engine::CpuPath::User)] = 1500;
        p.stacks = {{"docker-proxy [relay];[docker-proxy];_copy_to_iter", 70}, {"a [server]", 9}};
        AgentMessage m;
        m.type = AgentMessage::Type::Result;
        m.id = 7;
        m.result = std::make_shared<const engine::RunResult>(sent);
        const AgentMessage back = decoded(app::encodeAgentMessage(m));
        QVERIFY(back.result);
        const engine::CpuProfile& q = back.result->profile;
        QVERIFY(q.requested);
        QCOMPARE(q.note, p.note);
        QCOMPARE(q.cpus, p.cpus);
        QCOMPARE(q.periodNs, p.periodNs);
        QCOMPARE(q.samples, p.samples);
        QCOMPARE(q.idleSamples, p.idleSamples);
        QCOMPARE(q.lostSamples, p.lostSamples);
        QCOMPARE(q.profilerSamples, p.profilerSamples);
        QCOMPARE(q.samplerCpuSeconds, p.samplerCpuSeconds);
        QVERIFY(q.counts == p.counts);
        QCOMPARE(q.stacks.size(), size_t(2));
        QCOMPARE(q.stacks[0].frames, p.stacks[0].frames);
        QCOMPARE(q.stacks[0].samples, p.stacks[0].samples);

        sent.profile = {};
        sent.profile.requested = true;
        sent.profile.unavailable = "perf events on every CPU are refused";
        m.result = std::make_shared<const engine::RunResult>(sent);
        QCOMPARE(decoded(app::encodeAgentMessage(m)).result->profile.unavailable,
                 sent.profile.unavailable);
        sent.profile = {};
        m.result = std::make_shared<const engine::RunResult>(sent);
        QVERIFY(!app::encodeAgentMessage(m).contains("\"profile\""));
        QVERIFY(!decoded(app::encodeAgentMessage(m)).result->profile.requested);
    }

    void progressAndRunRoundTrip() {
        auto progress = std::make_shared<engine::Progress>();
        progress->elapsedSeconds = -0.5;
        progress->warmingUp = true;
        progress->complete = 17;
        progress->bytesReceived = 1700;
        progress->target = 2000;
        progress->intervalSeconds = 0.1;
        progress->intervalComplete = 5;
        progress->intervalLatency = histogramOf({10, 20, 30, 40, 50});
        AgentMessage m;
        m.type = AgentMessage::Type::Progress;
        m.id = 3;
        m.progress = progress;
        const AgentMessage back = decoded(app::encodeAgentMessage(m));
        QVERIFY(back.progress);
        QCOMPARE(back.progress->elapsedSeconds, -0.5);
        QVERIFY(back.progress->warmingUp);
        QCOMPARE(back.progress->complete, 17u);
        QCOMPARE(back.progress->bytesReceived, 1700u);
        QCOMPARE(back.progress->target, 2000u);
        QCOMPARE(back.progress->intervalComplete, 5u);
        QCOMPARE(back.progress->intervalLatency.count(), 5u);

        AgentMessage run;
        run.type = AgentMessage::Type::Run;
        run.id = 9;
        app::AgentRunRequest request;
        // A name starting with U+FEFF, which Qt drops from a string it reads
        // raw: the line escapes it.
        request.target = app::makeTarget(QString(QChar(0xFEFF) + QStringLiteral("nat")),
                                         app::DeploymentMode::ContainerNat, 0);
        request.target.http.url = QStringLiteral("http://10.213.0.2:8080/index.html");
        request.target.lab = app::LabPlacement{QStringLiteral("container-nat"),
                                               QStringLiteral("nginx"),
                                               {{QStringLiteral("size"), QStringLiteral("2")}}};
        request.plan.limit = app::PointLimit::Requests;
        request.plan.requestsPerPoint = 2000;
        request.concurrency = 100;
        request.rate = 2500;
        request.preload = true;
        run.run = request;
        const AgentMessage runBack = decoded(app::encodeAgentMessage(run));
        QVERIFY(runBack.run);
        QCOMPARE(runBack.id, 9u);
        QVERIFY(runBack.run->target == request.target);
        QVERIFY(runBack.run->plan == request.plan);
        QCOMPARE(runBack.run->concurrency, 100);
        QCOMPARE(runBack.run->rate, 2500.0);
        QVERIFY(runBack.run->preload);
        QVERIFY(runBack.run->serverCpu.empty()); // not sent: no "serverCpu" key
        QVERIFY(!app::encodeAgentMessage(run).contains("serverCpu"));

        // The lab's server process, with its children, and a cgroup; never threads.
        run.run->serverCpu.pid = 4242;
        run.run->serverCpu.withChildren = true;
        run.run->serverCpu.cgroup = "/sys/fs/cgroup/lab.slice";
        run.run->serverCpu.threads = {7, 8};
        const AgentMessage withServer = decoded(app::encodeAgentMessage(run));
        QCOMPARE(withServer.run->serverCpu.pid, 4242);
        QVERIFY(withServer.run->serverCpu.withChildren);
        QCOMPARE(withServer.run->serverCpu.cgroup, std::string("/sys/fs/cgroup/lab.slice"));
        QVERIFY(withServer.run->serverCpu.threads.empty());
    }

    void malformedLinesAreOneLineErrors_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("names");
        QTest::newRow("not json") << QByteArray("hello agent") << "not JSON";
        QTest::newRow("array") << QByteArray("[1,2]") << "not a JSON object";
        QTest::newRow("no type") << QByteArray("{\"id\":1}") << "type";
        QTest::newRow("unknown type") << QByteArray("{\"type\":\"launch\",\"id\":1}") << "launch";
        QTest::newRow("run without id") << QByteArray("{\"type\":\"run\"}") << "id";
        QTest::newRow("run without target")
            << QByteArray("{\"type\":\"run\",\"id\":1,\"plan\":{}}") << "target";
        QTest::newRow("bad histogram")
            << QByteArray("{\"type\":\"progress\",\"id\":1,\"progress\":{\"elapsedSeconds\":0,"
                          "\"warmingUp\":false,\"complete\":0,\"failed\":0,\"bytesReceived\":0,"
                          "\"bytesSent\":0,\"target\":0,\"targetSeconds\":0,\"intervalSeconds\":0,"
                          "\"intervalComplete\":0,\"intervalLatency\":\"!!\"}}")
            << "intervalLatency";
        QTest::newRow("negative count") << QByteArray("{\"type\":\"cancel\",\"id\":-4}") << "id";
        // A run request that is good but for its server CPU.
        AgentMessage good;
        good.type = AgentMessage::Type::Run;
        good.id = 1;
        good.run = app::AgentRunRequest{};
        good.run->target = app::makeTarget(QStringLiteral("n"), app::DeploymentMode::Host, 0);
        const auto withServerCpu = [&good](const QJsonObject& serverCpu) {
            QJsonObject json = QJsonDocument::fromJson(app::encodeAgentMessage(good)).object();
            json.insert(QStringLiteral("serverCpu"), serverCpu);
            return QJsonDocument(json).toJson(QJsonDocument::Compact);
        };
        QTest::newRow("server PID 0")
            << withServerCpu({{QStringLiteral("pid"), 0}}) << "serverCpu.pid";
        QTest::newRow("relative server cgroup")
            << withServerCpu({{QStringLiteral("cgroup"), QStringLiteral("lab.slice")}})
            << "serverCpu.cgroup";
    }

    void malformedLinesAreOneLineErrors() {
        QFETCH(QByteArray, line);
        QFETCH(QString, names);
        const auto message = app::decodeAgentMessage(line);
        QVERIFY(!message);
        QVERIFY2(message.error().message.contains(names), qPrintable(message.error().message));
        QVERIFY(!message.error().message.contains(QLatin1Char('\n')));

        // The agent answers the same line with one error line and goes on.
        AgentUnderTest agent;
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        agent.agent.handleLine(line);
        QCOMPARE(agent.lines.size(), 2);
        QCOMPARE(agent.lines.at(1).count('\n'), 1);
        const AgentMessage error = agent.last();
        QCOMPARE(int(error.type), int(AgentMessage::Type::Error));
        QVERIFY2(error.message.startsWith(QStringLiteral("bad request: ")),
                 qPrintable(error.message));
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        QCOMPARE(int(agent.last().type), int(AgentMessage::Type::Hello));
    }

    void unknownVersionIsRefused() {
        AgentUnderTest agent;
        QSignalSpy finished(&agent.agent, &app::LoadAgent::finished);
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion + 1));
        QCOMPARE(agent.lines.size(), 1);
        const AgentMessage error = agent.last();
        QCOMPARE(int(error.type), int(AgentMessage::Type::Error));
        QVERIFY2(error.message.contains(QStringLiteral("version 2")), qPrintable(error.message));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
        QCOMPARE(finished.at(0).at(0).toInt(), 2);
        // Nothing more is answered.
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        QCOMPARE(agent.lines.size(), 1);
    }

    void requestBeforeHelloIsRefused() {
        AgentUnderTest agent;
        agent.agent.handleLine(QByteArrayLiteral("{\"type\":\"cancel\",\"id\":1}"));
        QCOMPARE(agent.lines.size(), 1);
        QVERIFY(agent.last().message.contains(QStringLiteral("first request must be hello")));
    }

    void safetyRule_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("labSet");
        QTest::addColumn<bool>("sameNetns");
        QTest::addColumn<QByteArray>("routeTable"); // as /proc/self/net/route
        QTest::addColumn<QString>("refusal");       // empty: allowed
        QTest::addColumn<QString>("rangeVariable"); // LOADSCOPE_LAB_RANGE
        QTest::addColumn<QString>("clientLink");    // the link holding 10.213.0.1
        QTest::addColumn<bool>("initNetnsIsOwn");   // PID 1's namespace is the agent's
        // A lab client's namespace, as `ip route` in it would list it:
        // 10.213.0.0/24 dev wire0 and 10.213.4.0/24 via 10.213.0.1.
        const QByteArray lab = kRouteHeader +
                               "wire0\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                               "wire0\t0004D50A\t0100D50A\t0003\t0\t0\t0\t00FFFFFF\n";
        QTest::newRow("loopback") << "127.0.0.1" << false << false << QByteArray() << QString()
                                  << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0")
                                  << false;
        QTest::newRow("loopback /8")
            << "127.45.6.7" << false << false << QByteArray() << QString()
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        QTest::newRow("v6 loopback")
            << "::1" << false << false << QByteArray() << QString()
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        QTest::newRow("no lab") << "10.213.0.2" << false << false << lab
                                << "LOADSCOPE_LAB_HOST_NETNS is not set"
                                << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0")
                                << false;
        QTest::newRow("public, no lab")
            << "192.0.2.1" << false << false << lab << "127.0.0.0/8 or ::1"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        QTest::newRow("host namespace")
            << "10.213.0.2" << true << true << lab << "machine's own network namespace"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        QTest::newRow("in the lab")
            << "10.213.4.2" << true << false << lab << QString() << QStringLiteral("10.213.0.0/16")
            << QStringLiteral("wire0") << false;
        QTest::newRow("outside the range")
            << "10.214.0.2" << true << false << lab << "not in the lab's range 10.213.0.0/16"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        QTest::newRow("no route") << "10.213.9.2" << true << false << lab
                                  << "no route to it in the agent's network namespace"
                                  << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0")
                                  << false;
        QTest::newRow("no route table")
            << "10.213.0.2" << true << false << QByteArray() << "no route to it"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
        // The more specific route decides: here a /32 through lo.
        QTest::newRow("route by lo") << "10.213.4.2" << true << false
                                     << lab + "lo\t0204D50A\t00000000\t0005\t0\t0\t0\tFFFFFFFF\n"
                                     << "its route leaves by lo" << QStringLiteral("10.213.0.0/16")
                                     << QStringLiteral("wire0") << false;
        // A route that is down does not count, even when it is the most specific.
        QTest::newRow("route down") << "10.213.9.2" << true << false
                                    << lab + "wire0\t0009D50A\t00000000\t0000\t0\t0\t0\t00FFFFFF\n"
                                    << "no route to it" << QStringLiteral("10.213.0.0/16")
                                    << QStringLiteral("wire0") << false;
        // What the environment says cannot make a lab: the namespace must be
        // the lab's client namespace, and the range may only narrow.
        QTest::newRow("spoofed: no wire0")
            << "10.213.4.2" << true << false << lab << "not the lab's client namespace"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("eth0") << false;
        QTest::newRow("spoofed: PID 1's namespace")
            << "10.213.4.2" << true << false << lab << "machine's own network namespace"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << true;
        QTest::newRow("range widened to everything")
            << "10.213.4.2" << true << false << lab << "it may narrow the range, never widen it"
            << QStringLiteral("0.0.0.0/0") << QStringLiteral("wire0") << false;
        QTest::newRow("range widened to 10/8")
            << "10.213.4.2" << true << false << lab << "it may narrow the range, never widen it"
            << QStringLiteral("10.0.0.0/8") << QStringLiteral("wire0") << false;
        QTest::newRow("range outside the lab")
            << "10.213.4.2" << true << false << lab << "it may narrow the range, never widen it"
            << QStringLiteral("192.0.2.0/24") << QStringLiteral("wire0") << false;
        QTest::newRow("range narrowed, inside")
            << "10.213.4.2" << true << false << lab << QString() << QStringLiteral("10.213.4.0/24")
            << QStringLiteral("wire0") << false;
        QTest::newRow("range narrowed, outside")
            << "10.213.0.2" << true << false << lab << "not in the lab's range 10.213.4.0/24"
            << QStringLiteral("10.213.4.0/24") << QStringLiteral("wire0") << false;
        QTest::newRow("no range variable: the lab's")
            << "10.213.4.2" << true << false << lab << QString() << QString()
            << QStringLiteral("wire0") << false;
        QTest::newRow("route by another link")
            << "10.213.4.2" << true << false
            << kRouteHeader + "eth1\t0004D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
            << "its route leaves by eth1, not by the lab's link wire0"
            << QStringLiteral("10.213.0.0/16") << QStringLiteral("wire0") << false;
    }

    // The table's own parse: columns by position, hex in memory order, lines
    // that do not parse skipped (the header, a truncated line).
    void routeTableParse() {
        const auto routes = app::parseRouteTable(
            kRouteHeader + "wire0\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "eth9\tzz\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "wire0\t00000000\n");
        QCOMPARE(routes.size(), size_t(1));
        QCOMPARE(routes.at(0).device, QStringLiteral("wire0"));
        QCOMPARE(routes.at(0).destination, 0x0AD50000u); // 10.213.0.0
        QCOMPARE(routes.at(0).mask, 0xFFFFFF00u);        // /24
    }

    void safetyRule() {
        QFETCH(QString, address);
        QFETCH(bool, labSet);
        QFETCH(bool, sameNetns);
        QFETCH(QByteArray, routeTable);
        QFETCH(QString, refusal);
        QFETCH(QString, rangeVariable);
        QFETCH(QString, clientLink);
        QFETCH(bool, initNetnsIsOwn);
        app::AgentEnvironment env;
        env.ownNetns = 4026531840u;
        env.routes = app::parseRouteTable(routeTable);
        env.linkAddresses = {{QStringLiteral("lo"), 0x7F000001u}, {clientLink, 0x0AD50001u}};
        if (initNetnsIsOwn)
            env.initNetns = env.ownNetns;
        if (labSet) {
            env.labHostNetns = sameNetns ? env.ownNetns : env.ownNetns + 7;
            env.labRange = rangeVariable;
        }
        verifyAgentTarget(address, env, refusal);
    }

    // A client placed on the lab's server host: the namespace holds the server host's end of
    // the wire (wire1, or the bridge lab-wire over it) with 10.213.0.2, and its routes to the
    // lab leave by that end or the lab's container and pod bridges; a link of that name with
    // another address, or a route by any other link, is no lab.
    void serverHostSafetyRule_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("hostLink"); // the link holding `hostAddress`
        QTest::addColumn<quint32>("hostAddress");
        QTest::addColumn<QString>("refusal"); // empty: allowed
        // The server host's routes: the wire, the container bridge, the pod bridge, the
        // Service range through the pod bridge, and a link of no lab.
        constexpr quint32 kServerHost = 0x0AD50002u;
        QTest::newRow("its own address") << "10.213.0.2"
                                         << "wire1" << kServerHost << QString();
        QTest::newRow("own address on the wire's bridge") << "10.213.0.2"
                                                          << "lab-wire" << kServerHost << QString();
        QTest::newRow("a container") << "10.213.1.3"
                                     << "wire1" << kServerHost << QString();
        QTest::newRow("a pod") << "10.213.2.20"
                               << "wire1" << kServerHost << QString();
        QTest::newRow("the Service") << "10.213.3.10"
                                     << "wire1" << kServerHost << QString();
        QTest::newRow("route by another link")
            << "10.213.4.2"
            << "wire1" << kServerHost << "its route leaves by eth1";
        QTest::newRow("route by the client's pod link")
            << "10.213.6.2"
            << "wire1" << kServerHost << "its route leaves by pod0";
        QTest::newRow("spoofed: not the lab's link")
            << "10.213.0.2"
            << "eth0" << kServerHost << "nor its server host's";
        QTest::newRow("spoofed: another address on wire1")
            << "10.213.0.2"
            << "wire1" << 0x0AD50009u << "nor its server host's";
    }
    void serverHostSafetyRule() {
        QFETCH(QString, address);
        QFETCH(QString, hostLink);
        QFETCH(quint32, hostAddress);
        QFETCH(QString, refusal);
        app::AgentEnvironment env;
        env.ownNetns = 4026531840u;
        env.labHostNetns = env.ownNetns + 7;
        env.routes = app::parseRouteTable(
            kRouteHeader + "wire1\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "lab-docker0\t0001D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "lab-cni0\t0002D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "lab-cni0\t0003D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "eth1\t0004D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
                           "pod0\t0006D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n");
        env.linkAddresses = {{QStringLiteral("lo"), 0x7F000001u}, {hostLink, hostAddress}};
        verifyAgentTarget(address, env, refusal);
    }

    // The one gate for every connection made for a target: this process never
    // reaches a lab target, whatever its address; an agent reaches what its
    // safety rule allows, lab target or not, and nothing it was not given the
    // address of.
    void connectionGate_data() {
        QTest::addColumn<bool>("labTarget");
        QTest::addColumn<bool>("agent");
        QTest::addColumn<QString>("address"); // empty: none given
        QTest::addColumn<bool>("insideLab");
        QTest::addColumn<QString>("refusal"); // empty: allowed
        const QString labLine =
            QStringLiteral("lab target 'host' is reached inside its lab: run the sweep");
        QTest::newRow("window, lab target") << true << false << QString() << false << labLine;
        QTest::newRow("window, lab target at loopback")
            << true << false << QStringLiteral("127.0.0.1") << false << labLine;
        QTest::newRow("window, lab target, inside a lab")
            << true << false << QStringLiteral("10.213.0.2") << true << labLine;
        QTest::newRow("window, own target") << false << false << QString() << false << QString();
        // A target of the user's own is the user's network; the lab's range is
        // the lab's only inside the lab.
        QTest::newRow("window, own target in 10.213/16")
            << false << false << QStringLiteral("10.213.0.2") << false << QString();
        QTest::newRow("agent alone, loopback")
            << true << true << QStringLiteral("127.0.0.1") << false << QString();
        QTest::newRow("agent alone, lab address")
            << true << true << QStringLiteral("10.213.0.2") << false
            << QStringLiteral("refusing to send load to 10.213.0.2");
        QTest::newRow("agent in the lab")
            << true << true << QStringLiteral("10.213.0.2") << true << QString();
        QTest::newRow("agent, no address")
            << true << true << QString() << true << QStringLiteral("its address was not checked");
    }

    void connectionGate() {
        QFETCH(bool, labTarget);
        QFETCH(bool, agent);
        QFETCH(QString, address);
        QFETCH(bool, insideLab);
        QFETCH(QString, refusal);
        app::Target target = app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0);
        if (labTarget)
            target.lab = app::LabPlacement{QStringLiteral("host"), QStringLiteral("echo"), {}};
        app::AgentEnvironment env;
        env.ownNetns = 4026531840u;
        env.routes = app::parseRouteTable(kRouteHeader +
                                          "wire0\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\n");
        if (insideLab) {
            env.labHostNetns = env.ownNetns + 7;
            env.labRange = QStringLiteral("10.213.0.0/16");
            env.linkAddresses = {{QStringLiteral("wire0"), 0x0AD50001u}};
        }
        std::optional<engine::SocketAddress> where;
        if (!address.isEmpty())
            where = numeric(address.toLatin1().constData());
        const auto checked = app::checkConnection(
            target, agent ? app::Connector::LoadAgent : app::Connector::ThisProcess,
            where ? &*where : nullptr, &env);
        if (refusal.isEmpty()) {
            QVERIFY2(checked.ok(), checked.ok() ? "" : qPrintable(checked.error().message));
            return;
        }
        QVERIFY(!checked);
        QVERIFY2(checked.error().message.contains(refusal), qPrintable(checked.error().message));
        QVERIFY(!checked.error().message.contains(QLatin1Char('\n')));
    }

    // The rule holds for a whole run request: refused before any connection.
    void agentRefusesARunOutsideTheRule() {
        AgentUnderTest agent(app::AgentEnvironment::current());
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        AgentMessage run;
        run.type = AgentMessage::Type::Run;
        run.id = 5;
        app::AgentRunRequest request;
        request.target = app::makeTarget(QStringLiteral("far"), app::DeploymentMode::Host, 0);
        request.target.http.url = QStringLiteral("http://192.0.2.7:8080/");
        request.plan.limit = app::PointLimit::Requests;
        request.plan.requestsPerPoint = 10;
        run.run = request;
        agent.agent.handleLine(app::encodeAgentMessage(run));
        QTRY_COMPARE_WITH_TIMEOUT(agent.lines.size(), 2, 5000);
        const AgentMessage error = agent.last();
        QCOMPARE(int(error.type), int(AgentMessage::Type::Error));
        QCOMPARE(error.id, 5u);
        QVERIFY2(
            error.message.startsWith(QStringLiteral("refusing to send load to 192.0.2.7:8080")),
            qPrintable(error.message));
    }

    void labLineIsRead() {
        const QByteArray line =
            "{\"lab\":{\"mtu\":9000,\"modes\":[{\"mode\":\"container-nat\",\"label\":\"NAT\","
            "\"address\":\"10.213.1.2\",\"port\":8080,\"path\":\"veth > nft DNAT > bridge\","
            "\"serverPid\":31337}],"
            "\"versions\":{\"nft\":\"1.0.6\"},\"hostNetns\":4026531840}}\n";
        QVERIFY(app::isLabLine(line));
        QVERIFY(!app::isLabLine(helloLine(1)));
        const auto lab = app::labInfoFromLine(line);
        QVERIFY2(lab.ok(), lab.ok() ? "" : qPrintable(lab.error().message));
        QCOMPARE(lab->mtu, 9000);
        QCOMPARE(lab->hostNetns, 4026531840u);
        const app::LabModeEndpoint* nat = lab->find(QStringLiteral("container-nat"));
        QVERIFY(nat);
        QCOMPARE(nat->address, QStringLiteral("10.213.1.2"));
        QCOMPARE(nat->port, 8080);
        QCOMPARE(nat->serverPid, 31337);
        QVERIFY(!lab->find(QStringLiteral("host")));
        const auto broken = app::labInfoFromLine("{\"lab\":{\"mtu\":9000,\"modes\":[{}]}}");
        QVERIFY(!broken);
        QVERIFY2(broken.error().message.contains(QStringLiteral("modes[0].mode")),
                 qPrintable(broken.error().message));
    }

    // Version 2's messages: pings and pongs, a run's start and allowed
    // endpoints, a result's start, watches and their windows, the hello's host.
    void hostMessagesRoundTrip() {
        AgentMessage pong;
        pong.type = AgentMessage::Type::Pong;
        pong.id = 7;
        pong.clockUs = 1'796'525'085'138'375; // µs since the epoch: exact in JSON
        QCOMPARE(decoded(app::encodeAgentMessage(pong)).clockUs, pong.clockUs);

        AgentMessage run;
        run.type = AgentMessage::Type::Run;
        run.id = 8;
        run.run = app::AgentRunRequest{};
        run.run->target = app::makeTarget(QStringLiteral("n"), app::DeploymentMode::Host, 0);
        run.run->startAtUs = 1'796'525'085'500'000;
        run.run->allow = {QStringLiteral("10.0.0.7:80"), QStringLiteral("[fd00::7]:8080")};
        const AgentMessage runBack = decoded(app::encodeAgentMessage(run));
        QCOMPARE(runBack.run->startAtUs, run.run->startAtUs);
        QCOMPARE(runBack.run->allow, run.run->allow);

        AgentMessage result;
        result.type = AgentMessage::Type::Result;
        result.id = 8;
        result.result = std::make_shared<const engine::RunResult>();
        result.measuredFromUs = 1'796'525'085'501'234;
        QCOMPARE(decoded(app::encodeAgentMessage(result)).measuredFromUs, result.measuredFromUs);

        AgentMessage watch;
        watch.type = AgentMessage::Type::Watch;
        watch.id = 9;
        watch.watch = app::AgentWatchRequest{};
        watch.watch->process = QStringLiteral("nginx");
        watch.watch->container = QStringLiteral("web-1");
        watch.watch->atUs = 1'796'525'085'600'000;
        const AgentMessage watchBack = decoded(app::encodeAgentMessage(watch));
        QCOMPARE(watchBack.watch->process, QStringLiteral("nginx"));
        QCOMPARE(watchBack.watch->container, QStringLiteral("web-1"));
        QCOMPARE(watchBack.watch->atUs, watch.watch->atUs);

        AgentMessage window;
        window.type = AgentMessage::Type::Window;
        window.id = 9;
        window.window = app::AgentWindow{};
        window.window->cpu = fullResult().cpu;
        window.window->fromUs = 10;
        window.window->toUs = 20;
        window.window->server = QStringLiteral("nginx: pid 8 with its children");
        const AgentMessage windowBack = decoded(app::encodeAgentMessage(window));
        QCOMPARE(windowBack.window->cpu.serverCpuSeconds, window.window->cpu.serverCpuSeconds);
        QCOMPARE(windowBack.window->toUs, 20);
        QCOMPARE(windowBack.window->server, window.window->server);

        const AgentMessage hello = decoded(app::encodeAgentMessage(app::agentHello(5)));
        QVERIFY(hello.cpus >= 1);
        QVERIFY(!hello.hostName.isEmpty());
        QVERIFY(!hello.kernel.isEmpty());

        const auto badAllow = app::decodeAgentMessage(
            "{\"type\":\"run\",\"id\":1,\"target\":{},\"plan\":{},\"concurrency\":1,"
            "\"allow\":[\"no port\"]}");
        QVERIFY(!badAllow);
    }

    // A refusal of the hello names both ends and what to do.
    void versionRefusalNamesBothEnds() {
        const auto refused = app::checkAgentProtocol(1, QStringLiteral("loadscope 0.0.9"));
        QVERIFY(!refused);
        const QString& message = refused.error().message;
        QVERIFY2(message.contains(QStringLiteral("version 1 (loadscope 0.0.9)")),
                 qPrintable(message));
        QVERIFY2(
            message.contains(QStringLiteral("speaks version %1").arg(app::kAgentProtocolVersion)),
            qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("install the same Loadscope version")));
        QVERIFY(app::versionSkewLine(app::clientHello().software).isEmpty());
        QVERIFY(app::versionSkewLine(QStringLiteral("loadscope 9.9.9"))
                    .contains(QStringLiteral("loadscope 9.9.9")));
    }

    // Outside the lab an endpoint the run request allows may be sent to, if it
    // is one host's address; inside the lab the lab's rule alone decides.
    void safetyRuleWithAllowedEndpoints_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("inLab");
        QTest::addColumn<bool>("allowed");
        QTest::addColumn<QString>("refusal"); // empty: sent to
        QTest::newRow("allowed") << "192.0.2.7" << false << true << QString();
        QTest::newRow("allowed v6") << "2001:db8::7" << false << true << QString();
        QTest::newRow("not allowed") << "192.0.2.7" << false << false << "127.0.0.0/8 or ::1";
        QTest::newRow("unspecified") << "0.0.0.0" << false << true << "not one host's address";
        QTest::newRow("multicast") << "224.0.0.1" << false << true << "not one host's address";
        QTest::newRow("broadcast")
            << "255.255.255.255" << false << true << "not one host's address";
        QTest::newRow("lab: allow ignored")
            << "192.0.2.7" << true << true << "not in the lab's range";
    }
    void safetyRuleWithAllowedEndpoints() {
        QFETCH(QString, address);
        QFETCH(bool, inLab);
        QFETCH(bool, allowed);
        QFETCH(QString, refusal);
        app::AgentEnvironment env;
        env.ownNetns = 4026531840u;
        if (inLab) {
            env.labHostNetns = env.ownNetns + 7;
            env.labRange = QStringLiteral("10.213.0.0/16");
            env.linkAddresses = {{QStringLiteral("wire0"), 0x0AD50001u}};
        }
        const auto checked =
            app::checkAgentTarget(numeric(address.toLatin1().constData()), env, allowed);
        if (refusal.isEmpty()) {
            QVERIFY2(checked.ok(), checked.ok() ? "" : qPrintable(checked.error().message));
            return;
        }
        QVERIFY(!checked);
        QVERIFY2(checked.error().message.contains(refusal), qPrintable(checked.error().message));
    }

    void endpointsAllowedAsWritten() {
        const QStringList allow{QStringLiteral("Web.Internal:8080"),
                                QStringLiteral("[fd00::7]:80")};
        QVERIFY(app::endpointAllowed({QStringLiteral("web.internal"), 8080}, allow));
        QVERIFY(app::endpointAllowed({QStringLiteral("fd00::7"), 80}, allow));
        QVERIFY(!app::endpointAllowed({QStringLiteral("web.internal"), 8081}, allow));
        QVERIFY(!app::endpointAllowed({QStringLiteral("10.0.0.1"), 8080}, allow));
        QVERIFY(!app::endpointAllowed({QStringLiteral("web.internal"), 8080}, {}));
    }

    // A run allowed to an address outside loopback goes there: the refusal of
    // the same run without it is the rule's, not the network's.
    void agentSendsOnlyWhereTheRequestAllows() {
        for (const bool allow : {false, true}) {
            AgentUnderTest agent;
            agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
            AgentMessage run;
            run.type = AgentMessage::Type::Run;
            run.id = 5;
            app::AgentRunRequest request;
            request.target = app::makeTarget(QStringLiteral("far"), app::DeploymentMode::Host, 0);
            // Unspecified: refused by the rule either way, so nothing is sent.
            request.target.http.url = QStringLiteral("http://0.0.0.0:9/");
            request.plan.limit = app::PointLimit::Requests;
            request.plan.requestsPerPoint = 10;
            if (allow)
                request.allow = {QStringLiteral("0.0.0.0:9")};
            run.run = request;
            agent.agent.handleLine(app::encodeAgentMessage(run));
            QTRY_COMPARE_WITH_TIMEOUT(agent.lines.size(), 2, 5000);
            const QString message = agent.last().message;
            QVERIFY2(message.contains(allow ? QStringLiteral("not one host's address")
                                            : QStringLiteral("127.0.0.0/8 or ::1")),
                     qPrintable(message));
        }
    }

    // Pings are answered with the agent's clock (and a skew, when set, as a
    // host whose clock is that far ahead); a start further than a minute
    // ahead of it is refused.
    void agentClock() {
        AgentUnderTest agent;
        agent.agent.setClockSkew(std::chrono::milliseconds(5000));
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        const auto now = [] {
            return std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                .count();
        };
        const int64_t before = now();
        agent.agent.handleLine("{\"type\":\"ping\",\"id\":3}");
        const int64_t after = now();
        const AgentMessage pong = agent.last();
        QCOMPARE(int(pong.type), int(AgentMessage::Type::Pong));
        QCOMPARE(pong.id, 3u);
        QVERIFY(pong.clockUs >= before + 5'000'000 && pong.clockUs <= after + 5'000'000);

        AgentMessage run;
        run.type = AgentMessage::Type::Run;
        run.id = 4;
        run.run = app::AgentRunRequest{};
        run.run->target = app::makeTarget(QStringLiteral("n"), app::DeploymentMode::Host, 0);
        run.run->target.http.url = QStringLiteral("http://127.0.0.1:9/");
        run.run->startAtUs = agent.agent.clockUs() + 90'000'000;
        agent.agent.handleLine(app::encodeAgentMessage(run));
        QTRY_COMPARE_WITH_TIMEOUT(agent.lines.size(), 3, 5000);
        QVERIFY2(agent.last().message.contains(QStringLiteral("s ahead of this host's clock")),
                 qPrintable(agent.last().message));
    }

    // A watch of this very process: its window's server CPU is what the
    // kernel counted for the process meanwhile (getrusage), to a tick or two.
    void agentWatchesAServer() {
        AgentUnderTest agent;
        agent.agent.handleLine(helloLine(app::kAgentProtocolVersion));
        AgentMessage watch;
        watch.type = AgentMessage::Type::Watch;
        watch.id = 11;
        watch.watch = app::AgentWatchRequest{};
        watch.watch->serverCpu.pid = int(QCoreApplication::applicationPid());
        agent.agent.handleLine(app::encodeAgentMessage(watch));
        QTest::qWait(100); // the server is found and the first sample taken
        const auto cpuSeconds = [] {
            rusage usage{};
            ::getrusage(RUSAGE_SELF, &usage);
            return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                   double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
        };
        const double from = cpuSeconds();
        QElapsedTimer busy;
        busy.start();
        volatile uint64_t spin = 0;
        while (busy.elapsed() < 300)
            spin = spin + 1;
        const double used = cpuSeconds() - from;
        agent.agent.handleLine("{\"type\":\"unwatch\",\"id\":11}");
        QTRY_COMPARE_WITH_TIMEOUT(int(agent.last().type), int(AgentMessage::Type::Window), 5000);
        const AgentMessage window = agent.last();
        QCOMPARE(window.id, 11u);
        QVERIFY(window.window->cpu.valid);
        QVERIFY(window.window->cpu.serverCpuSeconds);
        const double ticks = 1.0 / double(engine::CpuSampler::ticksPerSecond());
        QVERIFY2(
            std::abs(*window.window->cpu.serverCpuSeconds - used) <= 3 * ticks + 0.02,
            qPrintable(
                QStringLiteral("%1 vs %2").arg(*window.window->cpu.serverCpuSeconds).arg(used)));
        QVERIFY(window.window->toUs > window.window->fromUs);
        QVERIFY(window.window->server.contains(
            QStringLiteral("pid %1").arg(QCoreApplication::applicationPid())));
    }
};

QTEST_GUILESS_MAIN(TestAgentProtocol)
#include "tst_agent_protocol.moc"
