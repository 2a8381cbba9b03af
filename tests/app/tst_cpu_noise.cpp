// Where the CPU went and when the machine was noisy: the /proc parsers against
// known text, a CPU hog started during a point against its own /proc/PID/stat,
// the server's CPU against /usr/bin/time, softirq through a userland proxy.
//
// This machine is shared: other processes load it while the suite runs. The
// quiet check therefore compares a point with the machine's other load
// measured just before and after it, not with 0, and the hog's share is
// checked on top of that background.
#include "app/servers/http_server.h"
#include "app/servers/tcp_proxy.h"
#include "app/session/cpu_usage.h"
#include "app/session/noise_advice.h"
#include "app/session/point_result.h"
#include "app/session/session.h"
#include "cli_process.h"
#include "embedded_server_support.h"
#include "engine/cpu_sampler.h"
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "engine/local_listener.h"
#include "fixed_delay_server.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

engine::LoadSpec httpSpec(uint16_t port, uint32_t concurrency, std::chrono::nanoseconds duration) {
    engine::HttpRequestSpec request;
    request.host = "127.0.0.1:" + std::to_string(port);
    request.keepAlive = true;
    engine::LoadSpec spec;
    spec.protocol = std::make_shared<engine::HttpProtocol>(request);
    spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = concurrency;
    spec.threads = 1;
    spec.duration = duration;
    return spec;
}

app::PointResult runPoint(engine::LoadSpec spec) {
    engine::LoadRun run(std::move(spec));
    run.start();
    return app::pointResultFromRun(run.wait(), {}, 1, 0, {});
}

// The machine's other load over `seconds` with nothing of ours running.
double idleOtherLoad(std::chrono::milliseconds window) {
    const engine::CpuSampler sampler;
    const engine::CpuSample start = sampler.sample();
    QTest::qWait(int(window.count()));
    const engine::CpuWindow w =
        engine::cpuWindow(start, sampler.sample(), engine::CpuSampler::ticksPerSecond());
    return 100.0 * (w.user + w.system + w.irq) / w.total();
}

uint64_t processTicks(pid_t pid) {
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return engine::parseProcessTicks(file.readAll().toStdString()).value_or(0);
}

// A busy loop in a child process, pinned to the last CPU when it may be.
pid_t startHog() {
    const pid_t pid = fork();
    if (pid == 0) {
        // Not one of the test's descriptors may live on in the hog: a copy of a socket the
        // in-process server has closed keeps it in the server's epoll set, which then reports
        // it for ever and spins the server's thread (a second busy CPU, counted as other load).
        close_range(3, ~0U, 0);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(int(sysconf(_SC_NPROCESSORS_ONLN)) - 1, &set);
        sched_setaffinity(0, sizeof set, &set); // best effort: unpinned it still burns one CPU
        volatile uint64_t spin = 0;
        for (;;) // ended by the test's SIGKILL
            spin = spin + 1;
    }
    return pid;
}

// Burns `seconds` of this process's own CPU, as its CPU clock counts it.
void burnCpu(double seconds) {
    const auto used = [] {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
    };
    const double until = used() + seconds;
    volatile uint64_t spin = 0;
    while (used() < until)
        spin = spin + 1;
}

void stopProcess(pid_t pid) {
    if (pid <= 0)
        return;
    ::kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
}

} // namespace

class TestCpuNoise : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesProcStat();
    void parsesProcessStat_data();
    void parsesProcessStat();
    void parsesCgroupUsage();
    void findsListenerInode();
    void judgesNoiseFromTheWindow();
    void advisesFromTheSpread();
    void cpuHogMarksPointNoisy();
    void serverCpuMatchesUsrBinTime();
    void processTreeCountsWorkersLiveAndReaped();
    void softirqPerRequestHigherThroughProxy();
};

void TestCpuNoise::parsesProcStat() {
    // Two samples of a 2-CPU machine, as the kernel prints them; 100 ticks/s.
    const std::string first = "cpu  100 10 50 800 5 2 8 4 0 0\n"
                              "cpu0 50 5 25 400 3 1 4 2 0 0\n"
                              "cpu1 50 5 25 400 2 1 4 2 0 0\n"
                              "intr 12345 0 0\nctxt 999\n";
    const std::string second = "cpu  160 10 90 900 5 4 18 4 0 0\n"
                               "cpu0 110 5 45 420 3 2 9 2 0 0\n"
                               "cpu1 50 5 45 480 2 2 9 2 0 0\n";
    auto a = engine::parseProcStat(first);
    auto b = engine::parseProcStat(second);
    QVERIFY(a && b);
    QCOMPARE(a->perCpu.size(), size_t(2));
    QCOMPARE(a->machine.steal, uint64_t(4));
    a->atNs = 0;
    b->atNs = 1'000'000'000;
    const engine::CpuWindow w = engine::cpuWindow(*a, *b, 100);
    QVERIFY(w.valid);
    QCOMPARE(w.cpus, 2);
    QCOMPARE(w.user, 0.6);    // 60 ticks
    QCOMPARE(w.system, 0.4);  // 40 ticks
    QCOMPARE(w.softirq, 0.1); // 10 ticks
    QCOMPARE(w.irq, 0.02);
    QCOMPARE(w.steal, 0.0);
    QCOMPARE(w.idle, 1.0);
    QCOMPARE(w.busyPerCpu.size(), size_t(2));
    QCOMPARE(w.busyPerCpu[0], 0.86); // user 60 + system 20 + irq 1 + softirq 5 ticks
    QVERIFY(!w.frequencyChanged);
    QVERIFY(!engine::parseProcStat("intr 1 2 3\n"));
}

void TestCpuNoise::parsesProcessStat_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<qulonglong>("ticks");
    QTest::newRow("plain")
        << QStringLiteral(
               "1234 (loadscope-cli) S 1 1234 1234 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 3 0")
        << 325ull;
    QTest::newRow("comm with ') ' inside")
        << QStringLiteral("77 (a) b (c)) R 1 77 77 0 -1 0 1 2 3 4 11 22 0 0 20 0 1 0") << 33ull;
}

void TestCpuNoise::parsesProcessStat() {
    QFETCH(QString, line);
    QFETCH(qulonglong, ticks);
    QCOMPARE(engine::parseProcessTicks(line.toStdString()).value_or(0), uint64_t(ticks));
    QVERIFY(!engine::parseProcessTicks("42 (short) S 1 2"));
}

void TestCpuNoise::parsesCgroupUsage() {
    QCOMPARE(engine::parseCgroupUsageNs("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n")
                 .value_or(0),
             uint64_t(1'500'000));
    QVERIFY(!engine::parseCgroupUsageNs("user_usec 1000\n"));
}

void TestCpuNoise::findsListenerInode() {
    const std::string table =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        "   0: 0100007F:4E20 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0  "
        "      0 111 1 0000000000000000 20 4 30 10 -1\n"
        "   1: 0100007F:4E20 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0  "
        "      0 222 1 0000000000000000 100 0 0 10 0\n";
    QCOMPARE(engine::listeningInode(table, 0x4E20).value_or(0), uint64_t(222)); // port 20000
    QVERIFY(!engine::listeningInode(table, 20001));
}

void TestCpuNoise::judgesNoiseFromTheWindow() {
    // 2 CPUs for 1 s: 2 s of CPU, of which user 0.5 + system 0.3 + irq 0; the
    // client and the server used 0.2 s each, so 0.4 s (20 %) was someone else's.
    app::PointResult r;
    r.complete = 1000;
    r.clientCpuSeconds = 0.2;
    r.cpu = app::CpuUsage{1.0, 2, 0.5, 0.3, 0.0, 0.1, 0.04, 1.06, 0.2, false};
    QCOMPARE(app::otherLoadPercent(r).value_or(-1), 20.0);
    QCOMPARE(app::serverCpuUsPerRequest(r).value_or(-1), 200.0); // 0.2 s / 1000
    QCOMPARE(app::softirqUsPerRequest(r).value_or(-1), 100.0);
    app::judgeNoise(r, 10);
    QCOMPARE(r.noise, QStringLiteral("other load 20.0 % of the machine (threshold 10.0 %); steal "
                                     "2.0 % (the hypervisor ran something else)"));
    r.cpu->steal = 0;
    r.cpu->idle = 1.1;
    app::judgeNoise(r, 25);
    QCOMPARE(r.noise, QString());
    r.cpu->frequencyChanged = true;
    app::judgeNoise(r, 25);
    QCOMPARE(r.noise, QStringLiteral("CPU frequency changed"));
    // Without a window nothing is judged: an imported result stays unjudged.
    app::PointResult imported;
    app::judgeNoise(imported, 0);
    QVERIFY(imported.noise.isEmpty() && !app::otherLoadPercent(imported));
}

void TestCpuNoise::advisesFromTheSpread() {
    // (1.96 x 10 / 3)^2 = 42.68 (by hand): 43 repetitions for ±3 % at a CV of 10 %.
    QCOMPARE(app::repetitionsFor(10, 3), 43);
    QCOMPARE(app::repetitionsFor(0, 3), 2);
    app::Session session;
    app::Target target;
    target.id = QUuid::createUuid();
    target.name = QStringLiteral("web");
    session.targets.push_back(target);
    // 95, 100, 105 requests/s: sd 5, CV 5 %, so (1.96 x 5 / 3)^2 = 10.67 -> 11.
    const uint64_t counts[] = {95, 100, 105};
    for (int i = 0; i < 3; ++i) {
        app::PointResult r;
        r.targetId = target.id;
        r.concurrency = 1;
        r.repetition = i;
        r.complete = counts[i];
        r.durationSeconds = 1;
        r.noise = i == 1 ? QStringLiteral("other load 30.0 % of the machine (threshold 10.0 %)")
                         : QString();
        session.results.push_back(r);
    }
    const QString advice = app::tighteningAdvice(session);
    QVERIFY2(advice.contains(QStringLiteral("up to 5.0 %")), qPrintable(advice));
    QVERIFY2(advice.contains(QStringLiteral("about 11 repetitions")), qPrintable(advice));
    QVERIFY2(advice.contains(QStringLiteral("pinning")), qPrintable(advice));
    QVERIFY2(advice.contains(QStringLiteral("1 of 3 points were noisy")), qPrintable(advice));
    // Steady, pinned and quiet: nothing to advise.
    for (app::PointResult& r : session.results) {
        r.complete = 100;
        r.pinned = true;
        r.noise.clear();
    }
    QVERIFY2(app::tighteningAdvice(session).contains(QStringLiteral("as tight as measured")),
             qPrintable(app::tighteningAdvice(session)));
}

void TestCpuNoise::cpuHogMarksPointNoisy() {
    // A slow server keeps the point's own CPU small: ~25 requests a second.
    testing::FixedDelayServer server({.delay = 40ms});
    QVERIFY(server.isListening());
    const auto window = 1500ms;

    const double before = idleOtherLoad(1000ms);
    const app::PointResult quiet = runPoint(httpSpec(server.port(), 1, window));
    QVERIFY(quiet.cpu);
    const double quietOther = app::otherLoadPercent(quiet).value_or(-1);

    const pid_t hog = startHog();
    QVERIFY(hog > 0);
    QTest::qWait(100); // running and placed before the window opens
    const uint64_t hogStart = processTicks(hog);
    const app::PointResult loaded = runPoint(httpSpec(server.port(), 1, window));
    const uint64_t hogEnd = processTicks(hog);
    stopProcess(hog);
    const double after = idleOtherLoad(1000ms);

    QVERIFY(loaded.cpu);
    const double windowSeconds = loaded.cpu->wallSeconds;
    const double hogShare = 100.0 * double(hogEnd - hogStart) /
                            double(engine::CpuSampler::ticksPerSecond()) /
                            (loaded.cpu->cpus * windowSeconds);
    const double hogOther = app::otherLoadPercent(loaded).value_or(-1);
    const double background = (before + after) / 2;
    const double drift = std::abs(before - after) / 2;
    qInfo("background %.1f %% (before %.1f, after %.1f), quiet point %.1f %%, hog point %.1f %%, "
          "hog's own share %.1f %%",
          background, before, after, quietOther, hogOther, hogShare);

    // The hog's point is noisy, for its other load.
    app::PointResult judged = loaded;
    app::judgeNoise(judged, app::kDefaultNoiseThresholdPercent);
    QVERIFY2(judged.noise.contains(QStringLiteral("other load")), qPrintable(judged.noise));

    // A quiet point sees the machine's background, not more: judged against
    // that background plus the default threshold, it is not noisy for its load.
    const QString quietNoise = app::noiseReason(
        *quiet.cpu, quietOther, background + drift + app::kDefaultNoiseThresholdPercent);
    QVERIFY2(!quietNoise.contains(QStringLiteral("other load")), qPrintable(quietNoise));

    // The hog's CPU is never missing from other load, however busy the machine.
    QVERIFY2(hogOther >= hogShare - 5,
             qPrintable(QStringLiteral("%1 < %2").arg(hogOther).arg(hogShare)));
    // Beside a busy background the hog gets less than its CPU and displaces
    // part of the rest: the share is checked where the background leaves room.
    if (background + hogShare > 90)
        QSKIP("the machine is too busy to tell the hog from its background");
    QVERIFY2(hogShare > 20, "the hog did not run"); // one busy CPU of the machine's
    QVERIFY2(std::abs(hogOther - background - hogShare) <= 5 + drift,
             qPrintable(QStringLiteral("other load %1 %, background %2 % ± %3, hog %4 %")
                            .arg(hogOther)
                            .arg(background)
                            .arg(drift)
                            .arg(hogShare)));
}

void TestCpuNoise::serverCpuMatchesUsrBinTime() {
    if (!QFile::exists(QStringLiteral("/usr/bin/time")))
        QSKIP("no /usr/bin/time");
    QTemporaryDir dir;
    const QString timeFile = dir.filePath(QStringLiteral("time.txt"));
    QProcess timed;
    timed.start(QStringLiteral("/usr/bin/time"),
                {QStringLiteral("-f"), QStringLiteral("%U %S"), QStringLiteral("-o"), timeFile,
                 testing::cliPath(), QStringLiteral("serve"), QStringLiteral("http"),
                 QStringLiteral("--threads"), QStringLiteral("1")});
    QVERIFY(timed.waitForStarted(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(timed.canReadLine(), 10'000);
    const QString listening = QString::fromUtf8(timed.readLine()).trimmed();
    const QString address = listening.section(QLatin1Char(' '), -1);
    QVERIFY2(address.startsWith(QStringLiteral("127.0.0.1:")), qPrintable(listening));
    // The server is /usr/bin/time's only child.
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(timed.processId()));
    QVERIFY(children.open(QIODevice::ReadOnly));
    const int serverPid = children.readAll().trimmed().toInt();
    QVERIFY(serverPid > 0);
    // The listener is found without being named.
    QCOMPARE(engine::localListenerPid(address.section(QLatin1Char(':'), -1).toUShort()).value_or(0),
             serverPid);

    const testing::CliOutcome run = testing::runCli(
        {QStringLiteral("http"), QStringLiteral("-c"), QStringLiteral("4"), QStringLiteral("-t"),
         QStringLiteral("2"), QStringLiteral("--threads"), QStringLiteral("1"),
         QStringLiteral("--server-pid"), QString::number(serverPid), QStringLiteral("--json"),
         QStringLiteral("-"), QStringLiteral("http://") + address + QStringLiteral("/")});
    ::kill(serverPid, SIGTERM);
    QVERIFY(timed.waitForFinished(10'000));
    QCOMPARE(run.exitCode, 0);
    const QJsonObject json = run.json();
    const QJsonObject cpu = json.value(QStringLiteral("cpu")).toObject();
    const double requests = json.value(QStringLiteral("complete")).toDouble();
    QVERIFY(requests > 1000);
    QVERIFY2(cpu.contains(QStringLiteral("server_cpu_s")), run.out.constData());
    const double measuredUs = cpu.value(QStringLiteral("server_us_per_request")).toDouble();

    QFile times(timeFile);
    QVERIFY(times.open(QIODevice::ReadOnly));
    const QList<QByteArray> fields = times.readAll().trimmed().split(' ');
    QCOMPARE(fields.size(), 2);
    // /usr/bin/time counts the server's whole life; its start and stop cost
    // little next to two seconds of load.
    const double timeUs = (fields[0].toDouble() + fields[1].toDouble()) * 1e6 / requests;
    qInfo("server CPU per request: Loadscope %.2f µs, /usr/bin/time %.2f µs over %.0f requests",
          measuredUs, timeUs, requests);
    QVERIFY(timeUs > 0);
    QVERIFY2(std::abs(measuredUs - timeUs) <= 0.10 * timeUs,
             qPrintable(QStringLiteral("%1 vs %2").arg(measuredUs).arg(timeUs)));
}

// A master and two workers, as nginx or Apache run: the workers burn a known
// amount of CPU by their own clocks inside the window, one of them exits and is
// reaped before it ends. The server's figure is both workers' CPU; the master's
// own PID alone would say nearly nothing.
void TestCpuNoise::processTreeCountsWorkersLiveAndReaped() {
    constexpr double kBurn = 0.2; // seconds of CPU per worker
    int go[2];
    int done[2];
    QVERIFY(pipe(go) == 0 && pipe(done) == 0);
    const pid_t master = fork();
    if (master == 0) {
        setpgid(0, 0); // the group the test kills
        char byte = 0;
        const auto worker = [&](bool staysAlive) {
            const pid_t pid = fork();
            if (pid != 0)
                return pid;
            if (read(go[0], &byte, 1) != 1)
                _exit(1);
            burnCpu(kBurn);
            if (staysAlive) {
                (void)!write(done[1], "w", 1);
                for (;;)
                    pause(); // ended by the test's SIGKILL of the group
            }
            _exit(0);
        };
        const pid_t leaving = worker(false);
        worker(true);
        waitpid(leaving, nullptr, 0); // its CPU moves to this process's cutime + cstime
        (void)!write(done[1], "m", 1);
        for (;;)
            pause();
    }
    QVERIFY(master > 0);
    close(go[0]);
    close(done[1]);
    // Both workers exist once the master's children file names two.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(master));
            return children.open(QIODevice::ReadOnly) &&
                   children.readAll().trimmed().split(' ').size() == 2;
        }(),
        5000);
    engine::ServerCpuSource tree;
    tree.pid = master;
    tree.withChildren = true;
    engine::ServerCpuSource alone;
    alone.pid = master;
    const engine::CpuSampler treeSampler(tree);
    const engine::CpuSampler aloneSampler(alone);
    const engine::CpuSample treeStart = treeSampler.sample();
    const engine::CpuSample aloneStart = aloneSampler.sample();
    QCOMPARE(write(go[1], "gg", 2), 2);
    char finished[2];
    qsizetype got = 0;
    while (got < 2) {
        const ssize_t n = read(done[0], finished + got, size_t(2 - got));
        if (n <= 0)
            break;
        got += n;
    }
    const engine::CpuSample treeEnd = treeSampler.sample();
    const engine::CpuSample aloneEnd = aloneSampler.sample();
    ::kill(-master, SIGKILL);
    waitpid(master, nullptr, 0);
    close(go[1]);
    close(done[0]);
    QCOMPARE(got, qsizetype(2));
    const long ticks = engine::CpuSampler::ticksPerSecond();
    const engine::CpuWindow treeWindow = engine::cpuWindow(treeStart, treeEnd, ticks);
    const engine::CpuWindow aloneWindow = engine::cpuWindow(aloneStart, aloneEnd, ticks);
    QVERIFY(treeWindow.serverCpuSeconds && aloneWindow.serverCpuSeconds);
    qInfo("server CPU: tree %.3f s, master alone %.3f s, workers burned %.3f s",
          *treeWindow.serverCpuSeconds, *aloneWindow.serverCpuSeconds, 2 * kBurn);
    // Each process's ticks are rounded: a few ticks either way, plus forks and exits.
    QVERIFY2(std::abs(*treeWindow.serverCpuSeconds - 2 * kBurn) <= 0.05,
             qPrintable(QString::number(*treeWindow.serverCpuSeconds)));
    QVERIFY(*aloneWindow.serverCpuSeconds < 0.05);
}

void TestCpuNoise::softirqPerRequestHigherThroughProxy() {
    app::HttpServer http(testing::httpConfig(512));
    QVERIFY(testing::startServer(http));
    app::TcpProxy proxy(testing::proxyConfig(http.port()));
    QVERIFY(testing::startServer(proxy));

    // Interleaved rounds, so that drift of the machine falls on both alike.
    double softirq[2] = {0, 0};
    double server[2] = {0, 0};
    uint64_t requests[2] = {0, 0};
    for (int round = 0; round < 3; ++round) {
        for (int mode = 0; mode < 2; ++mode) {
            engine::LoadSpec spec = httpSpec(mode == 0 ? http.port() : proxy.port(), 4, 700ms);
            spec.serverCpu.threads = http.threadIds();
            if (mode == 1) {
                const std::vector<int> relay = proxy.threadIds();
                spec.serverCpu.threads.insert(spec.serverCpu.threads.end(), relay.begin(),
                                              relay.end());
            }
            const app::PointResult r = runPoint(std::move(spec));
            QVERIFY(r.cpu && r.cpu->serverSeconds);
            softirq[mode] += r.cpu->softirq;
            server[mode] += *r.cpu->serverSeconds;
            requests[mode] += r.complete - r.failed;
        }
    }
    proxy.stop();
    http.stop();
    QVERIFY(requests[0] > 1000 && requests[1] > 1000);
    const double direct = softirq[0] * 1e6 / double(requests[0]);
    const double proxied = softirq[1] * 1e6 / double(requests[1]);
    qInfo("softirq per request: direct %.2f µs, through the proxy %.2f µs; server CPU per "
          "request %.2f vs %.2f µs",
          direct, proxied, server[0] * 1e6 / double(requests[0]),
          server[1] * 1e6 / double(requests[1]));
    // The relay adds a second TCP connection per request: twice the loopback work.
    QVERIFY2(proxied > direct, qPrintable(QStringLiteral("%1 vs %2").arg(proxied).arg(direct)));
    QVERIFY(server[1] / double(requests[1]) > server[0] / double(requests[0]));
}

QTEST_GUILESS_MAIN(TestCpuNoise)
#include "tst_cpu_noise.moc"
