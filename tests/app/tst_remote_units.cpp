// The pieces of load from other hosts that need no host: the clock offset of
// pings, the split of a point over hosts, the exact merge of their runs, the
// ssh command and what its failures say, and the session's hosts on file.
// Each against a truth worked out by hand or recorded directly.
#include "app/agent/watched_server.h"
#include "app/remote/agent_merge.h"
#include "app/remote/clock_offset.h"
#include "app/remote/load_split.h"
#include "app/remote/ssh_command.h"
#include "app/session/session.h"
#include "app/session/session_json.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope;

namespace {

engine::Histogram histogramOf(const std::vector<int64_t>& values) {
    engine::Histogram histogram;
    for (int64_t value : values)
        histogram.record(value);
    return histogram;
}

app::Host host(const QString& name, const QString& destination) {
    app::Host h;
    h.name = name;
    h.destination = destination;
    return h;
}

} // namespace

class TestRemoteUnits : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A host's clock 40 ms ahead, read at an unknown moment within each
    // ping's round trip: the shortest trip bounds it best.
    void clockOffsetTakesTheShortestRoundTrip() {
        const int64_t ahead = 40'000; // µs
        std::vector<app::ClockReading> readings{
            {1'000'000, 1'000'000 + 900 + ahead, 1'001'000}, // trip 1000, read late
            {2'000'000, 2'000'000 + 60 + ahead, 2'000'100},  // trip 100, read at 60
            {3'000'000, 3'000'000 + 5 + ahead, 3'000'400},   // trip 400, read early
            {4'000'000, 4'000'000 + ahead, 3'999'000},       // this clock stepped back
        };
        const auto offset = app::clockOffsetOf(readings);
        QVERIFY(offset);
        QCOMPARE(offset->roundTripMs, 0.1);
        QCOMPARE(offset->uncertaintyMs, 0.05);
        // Read 10 µs after the trip's middle: the estimate is 40.010 ms, and
        // the truth (40 ms) lies within its bound.
        QCOMPARE(offset->offsetMs, 40.010);
        QVERIFY(std::abs(offset->offsetMs - 40.0) <= offset->uncertaintyMs);
        QCOMPARE(offset->readings, 4);
        QVERIFY(!app::clockOffsetOf({{5, 5, 4}}));
        QVERIFY(!app::clockOffsetOf({}));
    }

    void loadSplitAddsUpExactly_data() {
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<double>("rate");
        QTest::addColumn<qulonglong>("requests");
        QTest::addColumn<int>("hosts");
        QTest::addColumn<QList<int>>("connections");
        QTest::addColumn<QList<qulonglong>>("counts");
        QTest::newRow("even") << 4 << 0.0 << 10000ull << 2 << QList<int>{2, 2}
                              << QList<qulonglong>{5000, 5000};
        // 5 over 2: 3 and 2 connections; 1001 requests in their proportion,
        // 600.6 and 400.4, floored to 600 and 400 and the one left to the first.
        QTest::newRow("uneven") << 5 << 1000.0 << 1001ull << 2 << QList<int>{3, 2}
                                << QList<qulonglong>{601, 400};
        QTest::newRow("timed") << 7 << 700.0 << 0ull << 3 << QList<int>{3, 2, 2}
                               << QList<qulonglong>{0, 0, 0};
    }
    void loadSplitAddsUpExactly() {
        QFETCH(int, concurrency);
        QFETCH(double, rate);
        QFETCH(qulonglong, requests);
        QFETCH(int, hosts);
        QFETCH(QList<int>, connections);
        QFETCH(QList<qulonglong>, counts);
        const auto shares = app::splitLoad(concurrency, rate, requests, hosts);
        QVERIFY(shares);
        QCOMPARE(int(shares->size()), hosts);
        double rates = 0;
        for (int i = 0; i < hosts; ++i) {
            QCOMPARE((*shares)[size_t(i)].concurrency, connections[i]);
            QCOMPARE((*shares)[size_t(i)].requests, counts[i]);
            // Each host's rate is its connections' share of the whole.
            QCOMPARE((*shares)[size_t(i)].rate, rate * connections[i] / concurrency);
            rates += (*shares)[size_t(i)].rate;
        }
        QCOMPARE(rates, rate);
    }

    void fewerConnectionsThanHostsIsRefused() {
        const auto shares = app::splitLoad(1, 0, 100, 2);
        QVERIFY(!shares);
        QVERIFY(shares.error().message.contains(QStringLiteral("1 connections cannot be split "
                                                               "over 2 hosts")));
    }

    // Two hosts' runs: every count their sum, the histogram that of every
    // value recorded in one, the time from the earliest start to the latest
    // end on this machine's clock.
    void mergeIsExactOverTheCommonWindow() {
        const std::vector<int64_t> aValues{1000, 2000, 2000, 5'000'000};
        const std::vector<int64_t> bValues{1500, 2000, 90'000};
        app::AgentRunPart a;
        a.run.complete = 4;
        a.run.failed = 1;
        a.run.errors[size_t(engine::ErrorClass::Timeout)] = 1;
        a.run.bytesTotal = 4000;
        a.run.concurrency = 3;
        a.run.threads = 2;
        a.run.statusCodes = {{200, 3}};
        a.run.total = histogramOf(aValues);
        a.run.durationSeconds = 10.0;
        a.run.clientCpuSeconds = 1.5;
        a.run.cpu.valid = true; // its own machine's: not the point's
        a.measuredFromUs = 1'000'000'000'000;
        a.clockOffsetMs = 40; // its clock 40 ms ahead: it began at ...-40 ms here
        app::AgentRunPart b;
        b.run.complete = 3;
        b.run.bytesTotal = 3000;
        b.run.concurrency = 2;
        b.run.threads = 1;
        b.run.statusCodes = {{200, 3}};
        b.run.total = histogramOf(bValues);
        b.run.durationSeconds = 10.002;
        b.run.clientSaturated = true;
        b.measuredFromUs = 1'000'000'000'000 - 38'500; // 1.5 ms after a, here
        b.clockOffsetMs = 0;
        std::vector<app::PartSpan> spans;
        const engine::RunResult merged = app::mergeAgentRuns({a, b}, &spans);
        QCOMPARE(merged.complete, 7u);
        QCOMPARE(merged.failed, 1u);
        QCOMPARE(merged.errors[size_t(engine::ErrorClass::Timeout)], 1u);
        QCOMPARE(merged.bytesTotal, 7000u);
        QCOMPARE(merged.concurrency, 5u);
        QCOMPARE(merged.threads, 3u);
        QCOMPARE(merged.statusCodes.at(200), 6u);
        QVERIFY(merged.clientSaturated);
        QCOMPARE(merged.clientCpuSeconds, 1.5);
        QVERIFY(!merged.cpu.valid);
        std::vector<int64_t> all = aValues;
        all.insert(all.end(), bValues.begin(), bValues.end());
        QVERIFY(merged.total == histogramOf(all));
        // a: 0 to 10000 ms; b: 1.5 to 10003.5 ms.
        QCOMPARE(spans.size(), size_t(2));
        QCOMPARE(spans[0].startMs, 0.0);
        QCOMPARE(spans[1].startMs, 1.5);
        QCOMPARE(spans[1].endMs, 10003.5);
        QCOMPARE(merged.durationSeconds, 10.0035);
        // successful / the common window
        QCOMPARE(merged.requestsPerSecond(), 6 / 10.0035);
    }

    void sshCommandLine() {
        app::Host h = host(QStringLiteral("load1"), QStringLiteral("bench@10.0.0.5:2222"));
        h.command = QStringLiteral("sudo -n /opt/loadscope/bin/loadscope-cli");
        app::SshOptions options;
        options.configFile = QStringLiteral("/home/u/lab ssh.conf");
        const QStringList command =
            app::sshCommand(h, options,
                            {QStringLiteral("lab"), QStringLiteral("sandbox"),
                             QStringLiteral("--server-opt"), QStringLiteral("title=it's here")});
        const QStringList expected{
            QStringLiteral("ssh"),
            QStringLiteral("-T"),
            QStringLiteral("-o"),
            QStringLiteral("BatchMode=yes"),
            QStringLiteral("-o"),
            QStringLiteral("ConnectTimeout=5"),
            QStringLiteral("-o"),
            QStringLiteral("ServerAliveInterval=2"),
            QStringLiteral("-o"),
            QStringLiteral("ServerAliveCountMax=3"),
            QStringLiteral("-F"),
            QStringLiteral("/home/u/lab ssh.conf"),
            QStringLiteral("--"),
            QStringLiteral("ssh://bench@10.0.0.5:2222"),
            QStringLiteral("sudo -n /opt/loadscope/bin/loadscope-cli lab sandbox --server-opt "
                           "'title=it'\\''s here'")};
        QCOMPARE(command, expected);
        QCOMPARE(app::sshAgentCommand(host(QStringLiteral("a"), QStringLiteral("web")), {}).last(),
                 QStringLiteral("loadscope-cli lab agent"));
    }

    void destinations_data() {
        QTest::addColumn<QString>("destination");
        QTest::addColumn<QString>("argument"); // empty: refused
        QTest::newRow("config host") << "bench"
                                     << "bench";
        QTest::newRow("user and host") << "root@10.0.0.5"
                                       << "root@10.0.0.5";
        QTest::newRow("with a port") << "10.0.0.5:2222"
                                     << "ssh://10.0.0.5:2222";
        QTest::newRow("v6 with a port") << "u@[fd00::5]:22"
                                        << "ssh://u@[fd00::5]:22";
        QTest::newRow("v6 alone") << "u@[fd00::5]"
                                  << "u@fd00::5";
        QTest::newRow("an option") << "-oProxyCommand=sh"
                                   << "";
        QTest::newRow("a space") << "host name"
                                 << "";
        QTest::newRow("port 0") << "h:0"
                                << "";
        QTest::newRow("port too big") << "h:70000"
                                      << "";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("two ats") << "a@b@c"
                                 << "";
    }
    void destinations() {
        QFETCH(QString, destination);
        QFETCH(QString, argument);
        const auto checked = app::checkSshDestination(destination);
        QCOMPARE(checked.ok(), !argument.isEmpty());
        if (checked)
            QCOMPARE(app::sshDestinationArgument(destination), argument);
        else
            QVERIFY(!checked.error().message.contains(QLatin1Char('\n')));
    }

    void sshExitsSayWhatFailed_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("stderrLine");
        QTest::addColumn<QString>("says");
        QTest::addColumn<int>("stage");
        QTest::newRow("refused key") << 255 << "root@h: Permission denied (publickey)."
                                     << "ssh: root@h: Permission denied" << 1;
        QTest::newRow("no route") << 255
                                  << "ssh: connect to host 10.0.0.9 port 22: No route to host"
                                  << "ssh: connect to host 10.0.0.9" << 0;
        QTest::newRow("cut") << 255 << "Connection to 10.0.0.9 closed by remote host."
                             << "closed by remote host" << 2;
        QTest::newRow("not installed") << 127 << "bash: line 1: loadscope-cli: command not found"
                                       << "'loadscope-cli' is not installed there" << 2;
        QTest::newRow("not executable") << 126 << "bash: /x: Permission denied"
                                        << "cannot be run there" << 2;
        QTest::newRow("agent's own") << 2 << ""
                                     << "the load agent exited with status 2" << 2;
    }
    void sshExitsSayWhatFailed() {
        QFETCH(int, status);
        QFETCH(QString, stderrLine);
        QFETCH(QString, says);
        QFETCH(int, stage);
        const QString line =
            app::describeSshExit(host(QStringLiteral("web1"), QStringLiteral("root@10.0.0.9")),
                                 status, false, stderrLine);
        QVERIFY2(line.startsWith(QStringLiteral("host 'web1' (root@10.0.0.9): ")),
                 qPrintable(line));
        QVERIFY2(line.contains(says), qPrintable(line));
        QVERIFY(!line.contains(QLatin1Char('\n')));
        QVERIFY(!line.contains(QStringLiteral("ssh: ssh:")));
        if (status == 127)
            QVERIFY(line.contains(QStringLiteral("install Loadscope")));
        QCOMPARE(int(app::sshStageOf(status, stderrLine)), stage);
    }

    // Hosts and what names them survive the file; a name nobody has, a
    // destination ssh would not take or a host named twice are refused
    // with the field.
    void hostsOnFile() {
        app::Session session;
        session.hosts = {host(QStringLiteral("load1"), QStringLiteral("bench@10.0.0.5")),
                         host(QStringLiteral("db"), QStringLiteral("db.internal:2222"))};
        session.hosts[1].command = QStringLiteral("/opt/ls/bin/loadscope-cli");
        app::Target target = app::makeTarget(QStringLiteral("nginx"), app::DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://10.0.0.7/");
        target.loadFrom = {QStringLiteral("load1"), QStringLiteral("db")};
        target.serverHost = QStringLiteral("db");
        target.serverProcess = QStringLiteral("nginx");
        session.targets.push_back(target);
        session.lab = app::LabSetup{};
        session.lab->host = QStringLiteral("load1");
        const QJsonObject json = app::sessionToJson(session);
        QVERIFY(!json.value(u"hosts").toArray().at(0).toObject().contains(u"command"));
        const auto back = app::sessionFromJson(json);
        QVERIFY2(back, back ? "" : qPrintable(back.error().message));
        QVERIFY(back->hosts == session.hosts);
        QVERIFY(back->targets.at(0) == target);
        QCOMPARE(back->lab->host, QStringLiteral("load1"));

        const auto refused = [&](auto edit, const QString& field) {
            QJsonObject broken = json;
            edit(broken);
            const auto read = app::sessionFromJson(broken);
            QVERIFY(!read);
            QVERIFY2(read.error().message.contains(field), qPrintable(read.error().message));
        };
        refused(
            [](QJsonObject& j) {
                QJsonArray targets = j.value(u"targets").toArray();
                QJsonObject t = targets.at(0).toObject();
                t.insert(QStringLiteral("loadFrom"), QJsonArray{QStringLiteral("nobody")});
                targets.replace(0, t);
                j.insert(QStringLiteral("targets"), targets);
            },
            QStringLiteral("\"targets[0].loadFrom[0]\" names host 'nobody'"));
        refused(
            [](QJsonObject& j) {
                QJsonObject lab = j.value(u"lab").toObject();
                lab.insert(QStringLiteral("host"), QStringLiteral("elsewhere"));
                j.insert(QStringLiteral("lab"), lab);
            },
            QStringLiteral("\"lab.host\" names host 'elsewhere'"));
        refused(
            [](QJsonObject& j) {
                QJsonArray hosts = j.value(u"hosts").toArray();
                QJsonObject h = hosts.at(0).toObject();
                h.insert(QStringLiteral("destination"), QStringLiteral("-oProxyCommand=x"));
                hosts.replace(0, h);
                j.insert(QStringLiteral("hosts"), hosts);
            },
            QStringLiteral("\"hosts[0].destination\""));
        refused(
            [](QJsonObject& j) {
                QJsonArray hosts = j.value(u"hosts").toArray();
                hosts.append(hosts.at(0));
                j.insert(QStringLiteral("hosts"), hosts);
            },
            QStringLiteral("repeats the name of another host"));
    }

    // What a watch takes for the server: a process found by its name (the
    // oldest of that name; this test's own child, named for the run), nothing
    // for a name nobody runs or a container no engine here knows, with why.
    void watchedServerFoundByName() {
        QTemporaryDir dir;
        const QString name = QStringLiteral("lsw%1").arg(QCoreApplication::applicationPid());
        const QString program = dir.filePath(name);
        QVERIFY(QFile::link(QStandardPaths::findExecutable(QStringLiteral("sleep")), program));
        QProcess server;
        server.start(program, {QStringLiteral("30")});
        QVERIFY(server.waitForStarted());
        app::AgentWatchRequest request;
        request.process = name;
        const app::WatchedServer found = app::findWatchedServer(request);
        QCOMPARE(found.source.pid, int(server.processId()));
        QVERIFY(found.source.withChildren);
        QCOMPARE(found.description,
                 QStringLiteral("%1: pid %2 with its children").arg(name).arg(server.processId()));
        server.kill();
        server.waitForFinished();

        request.process = name + QStringLiteral("x");
        const app::WatchedServer missing = app::findWatchedServer(request);
        QVERIFY(missing.source.empty());
        QVERIFY(missing.description.contains(QStringLiteral("no process named")));

        request.process.clear();
        request.container =
            QStringLiteral("no-such-container-%1").arg(QCoreApplication::applicationPid());
        const app::WatchedServer noContainer = app::findWatchedServer(request);
        QVERIFY(noContainer.source.empty());
        QVERIFY2(noContainer.description.startsWith(
                     QStringLiteral("container %1: ").arg(request.container)),
                 qPrintable(noContainer.description));
    }

    // A result of several hosts keeps each one's own result, whole, in the file.
    void agentSharesOnFile() {
        app::PointResult part;
        part.targetId = QUuid::createUuid();
        part.source.tool = QStringLiteral("loadscope");
        part.concurrency = 2;
        part.complete = 100;
        part.durationSeconds = 1;
        part.totalHistogram = QByteArray::fromStdString(histogramOf({1000, 2000}).serialize());
        part.total = app::summarize(part.totalHistogram);
        app::PointResult merged = part;
        merged.concurrency = 4;
        merged.complete = 200;
        app::AgentShare share;
        share.host = QStringLiteral("load1");
        share.software = QStringLiteral("loadscope 0.1.0");
        share.clockOffsetMs = -1.25;
        share.clockUncertaintyMs = 0.04;
        share.startMs = 0.5;
        share.endMs = 1000.5;
        share.result = {part};
        app::AgentShare failed;
        failed.host = QStringLiteral("load2");
        failed.error = QStringLiteral("host 'load2' (load2): ssh: Connection closed");
        merged.agents = {share, failed};
        const QJsonObject json = app::pointResultToJson(merged);
        const app::JsonReader reader(json);
        const app::PointResult back = app::pointResultFromJson(reader);
        QVERIFY2(reader.ok(), qPrintable(reader.error().message));
        QCOMPARE(back.agents.size(), size_t(2));
        QVERIFY(back.agents[0] == share);
        QVERIFY(back.agents[1] == failed);
        QVERIFY(app::unknownResultKeys(json).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRemoteUnits)
#include "tst_remote_units.moc"
