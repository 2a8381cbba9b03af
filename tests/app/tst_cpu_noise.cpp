// Where the CPU went and when the machine was noisy: the /proc parsers against
// known text, a CPU hog beside a saturated client and server against what the
// scheduler charged every task, the server's CPU against /usr/bin/time,
// softirq through a userland proxy, the kernel's interrupt accounting against
// its configuration.
//
// This machine is shared: other processes load it while the suite runs. Other
// load is therefore checked against the runtime the scheduler charged every
// task but the client and the server over the same window (the root cpuacct
// group's usage, else each process's /proc/PID/stat; the hog's own counters its
// largest part), not against 0.
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
#include "engine/interrupt_accounting.h"
#include "engine/load_run.h"
#include "engine/local_listener.h"
#include "process_census.h"

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

// The machine's softirq time so far, from /proc/stat's "cpu" line as the kernel documents it
// (user nice system idle iowait irq softirq ...), read here rather than by the product's parser.
double softirqSecondsOfProcStat() {
    QFile file(QStringLiteral("/proc/stat"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = file.readLine().simplified().split(' ');
    return fields.value(7).toDouble() / double(sysconf(_SC_CLK_TCK));
}

// TCP segments this network namespace has sent so far: /proc/net/snmp's OutSegs (the "Tcp:"
// line of names, then the "Tcp:" line of values).
double tcpSegmentsSent() {
    QFile file(QStringLiteral("/proc/net/snmp"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    QList<QByteArray> names;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (!line.startsWith("Tcp:"))
            continue;
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (names.isEmpty()) {
            names = fields;
            continue;
        }
        return fields.value(names.indexOf("OutSegs")).toDouble();
    }
    return 0;
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
    void judgesNoiseFromTheWindow_data();
    void judgesNoiseFromTheWindow();
    void advisesFromTheSpread();
    void judgesInterruptAccounting();
    void interruptAccountingMatchesKernel();
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

void TestCpuNoise::judgesNoiseFromTheWindow_data() {
    // One second of a 2-CPU machine, built from what each task did and the kernel's rules
    // for counting it (kernel/sched/cputime.c): the client and the server each ran 0.1 s in
    // user space, 0.3 s in the kernel and served 0.1 s of softirq (their traffic's receive
    // work) in their own context; ksoftirqd served 0.1 s more; a hog spun 0.6 s in user space;
    // the hypervisor stole 0.04 s. /proc/stat counts user 0.8, system 0.6, softirq 0.3 either
    // way. What differs is whose runtime the 0.2 s of softirq in the tasks' context is: with
    // tick accounting (no CONFIG_IRQ_TIME_ACCOUNTING) it is in the client's and the server's
    // CPU, 0.5 s each; with IRQ time accounting it is taken out of them, 0.4 s each. The hog's
    // 0.6 s is other load: 30 % of the machine, in both.
    QTest::addColumn<bool>("interruptsInProcessTimes");
    QTest::addColumn<double>("processSeconds");
    QTest::newRow("tick accounting") << true << 0.5;
    QTest::newRow("IRQ time accounting") << false << 0.4;
}

void TestCpuNoise::judgesNoiseFromTheWindow() {
    QFETCH(bool, interruptsInProcessTimes);
    QFETCH(double, processSeconds);
    constexpr double kHogSeconds = 0.6;
    app::PointResult r;
    r.complete = 1000;
    r.clientCpuSeconds = processSeconds;
    r.cpu = app::CpuUsage{1.0,   2,    0.8,
                          0.6,   0.0,  0.3,
                          0.04,  0.26, processSeconds,
                          false, 0.1,  interruptsInProcessTimes};
    QCOMPARE(r.cpu->machineSeconds(), 2.0);
    QCOMPARE(app::otherLoadPercent(r).value_or(-1), 100 * kHogSeconds / 2.0);
    QCOMPARE(app::serverCpuUsPerRequest(r).value_or(-1), processSeconds * 1e3); // / 1000
    QCOMPARE(app::softirqUsPerRequest(r).value_or(-1), 300.0);
    app::judgeNoise(r, 10);
    QCOMPARE(r.noise, QStringLiteral("other load 30.0 % of the machine (threshold 10.0 %); steal "
                                     "2.0 % (the hypervisor ran something else)"));
    r.cpu->steal = 0;
    r.cpu->idle = 0.3;
    app::judgeNoise(r, 35);
    QCOMPARE(r.noise, QString());
    r.cpu->frequencyChanged = true;
    app::judgeNoise(r, 35);
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

void TestCpuNoise::judgesInterruptAccounting() {
    // A burst that had its CPU for 2 ms of wall time and was charged 1.99 ms: interrupts are in
    // the task's runtime; charged 1.3 ms: the receive work (a third of a loopback datagram)
    // was taken out of it.
    const engine::InterruptProbeBurst charged{2'000'000, 1'990'000, 0, 1000, 1000};
    const engine::InterruptProbeBurst apart{2'000'000, 1'300'000, 0, 1000, 1000};
    // Preempted for 1 ms: its own wait, not interrupt time.
    const engine::InterruptProbeBurst waited{3'000'000, 1'990'000, 1'000'000, 1000, 1000};
    // Interrupted by someone else's storm: only ever lower; the best burst decides.
    const engine::InterruptProbeBurst stormy{2'000'000, 1'500'000, 0, 1000, 1000};
    const engine::InterruptProbeBurst elsewhere{2'000'000, 1'990'000, 0, 1000, 10};
    using Bursts = std::vector<engine::InterruptProbeBurst>;
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{charged}), std::optional<bool>(true));
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{apart}), std::optional<bool>(false));
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{waited}), std::optional<bool>(true));
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{stormy, charged}), std::optional<bool>(true));
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{stormy, apart}), std::optional<bool>(false));
    // The receive work ran on another CPU: the burst says nothing.
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{elsewhere}), std::nullopt);
    QCOMPARE(engine::judgeInterruptAccounting(Bursts{}), std::nullopt);

    const std::string softirqs = "                    CPU0       CPU1       \n"
                                 "          HI:          1          0\n"
                                 "      NET_RX:    2720193    5071470\n";
    QCOMPARE(engine::parseNetRxSoftirqs(softirqs, 0), std::optional<uint64_t>(2720193));
    QCOMPARE(engine::parseNetRxSoftirqs(softirqs, 1), std::optional<uint64_t>(5071470));
    QCOMPARE(engine::parseNetRxSoftirqs(softirqs, 2), std::nullopt);
}

// The probe against the kernel's own configuration, where the kernel publishes it: without
// CONFIG_IRQ_TIME_ACCOUNTING interrupt time can only be charged to the task it interrupted.
// (With it, the kernel may still have left it off at boot: then either answer is possible.)
void TestCpuNoise::interruptAccountingMatchesKernel() {
    const std::optional<bool> measured = engine::interruptsInProcessTimes();
    QVERIFY2(measured, "no loopback to probe the kernel's accounting with");
    QProcess zcat;
    zcat.start(QStringLiteral("zcat"), {QStringLiteral("/proc/config.gz")});
    const QByteArray config = zcat.waitForFinished(10'000) ? zcat.readAllStandardOutput() : "";
    qInfo("interrupt time in process times: %s; /proc/config.gz: %s", *measured ? "yes" : "no",
          config.isEmpty()                                      ? "absent"
          : config.contains("\nCONFIG_IRQ_TIME_ACCOUNTING=y\n") ? "IRQ time accounting"
                                                                : "no IRQ time accounting");
    if (config.isEmpty())
        QSKIP("the kernel does not publish its configuration (/proc/config.gz)");
    if (config.contains("\n# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"))
        QCOMPARE(*measured, true);
    // Asked twice, the process answers as it first did.
    QCOMPARE(engine::interruptsInProcessTimes(), measured);
}

namespace {

// One point beside a saturated client and server, and what every task ran meanwhile.
struct HogPoint {
    app::PointResult result;
    double otherPercent = 0; // the figure under test
    double truthPercent = 0; // every task's runtime but the client's and the server's
    double hogPercent = 0;   // the hog's own, part of the truth
    QString lost;            // a process whose CPU the census could not follow, if any
};

HogPoint measureSaturatedPoint(const app::HttpServer& http, pid_t hog, bool profile) {
    engine::LoadSpec spec = httpSpec(http.port(), 16, 1500ms);
    spec.serverCpu.threads = http.threadIds();
    spec.profile = profile;
    HogPoint point;
    const auto wall = [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    const test::ProcessCensus before = test::processCensus();
    const uint64_t softirqStart = test::softirqThreadsRuntimeNs(before);
    const std::optional<uint64_t> tasksStart = test::tasksRuntimeNs();
    const double startedAt = wall();
    const uint64_t hogStart = hog > 0 ? processTicks(hog) : 0;
    point.result = runPoint(std::move(spec));
    const uint64_t hogEnd = hog > 0 ? processTicks(hog) : 0;
    const double bracket = wall() - startedAt;
    const std::optional<uint64_t> tasksEnd = test::tasksRuntimeNs();
    const test::ProcessCensus after = test::processCensus();
    if (!point.result.cpu || !point.result.cpu->serverSeconds)
        return point;
    const app::CpuUsage& cpu = *point.result.cpu;
    double tasks = 0; // every task's CPU over the bracket but the softirq threads'
    if (tasksStart && tasksEnd) {
        tasks = double(*tasksEnd - *tasksStart) / 1e9 -
                double(test::softirqThreadsRuntimeNs(after) - softirqStart) / 1e9;
    } else {
        const test::CensusDifference census = test::cpuBetween(before, after);
        point.lost = census.lost;
        tasks = census.seconds;
    }
    // Shares of each one's own span: the truth brackets the window by the run's start and end.
    const double machine = cpu.cpus * bracket;
    const double ours = point.result.clientCpuSeconds + *cpu.serverSeconds;
    point.truthPercent = 100.0 * (tasks / machine - ours / (cpu.cpus * cpu.wallSeconds));
    point.hogPercent =
        100.0 * double(hogEnd - hogStart) / double(engine::CpuSampler::ticksPerSecond()) / machine;
    point.otherPercent = app::otherLoadPercent(point.result).value_or(-1);
    return point;
}

// Softirq the client's and the server's traffic must make of the machine for the point to
// tell a rule that counts it from one that loses it.
constexpr double kSaturatedSoftirqPercent = 5;

bool saturated(const HogPoint& point) {
    return point.result.cpu && point.result.cpu->percentOfMachine(point.result.cpu->softirq) >=
                                   kSaturatedSoftirqPercent;
}

// The point again (up to four times) while it did not saturate the machine, other processes
// holding its CPUs, or while a process that ended during it took CPU the census cannot see
// with it (without cpuacct, on a machine where others build and test): the first would tell
// no rule from another, the second would leave the truth short.
HogPoint saturatedPoint(const app::HttpServer& http, pid_t hog, bool profile = false) {
    HogPoint point;
    for (int attempt = 0; attempt < 4; ++attempt) {
        point = measureSaturatedPoint(http, hog, profile);
        if (point.lost.isEmpty() && saturated(point))
            break;
        if (!point.lost.isEmpty())
            qInfo("measured again: %s ended during the point and its CPU reached no process",
                  qPrintable(point.lost));
        else
            qInfo("measured again: the point's softirq was %.1f %% of the machine",
                  point.result.cpu ? point.result.cpu->percentOfMachine(point.result.cpu->softirq)
                                   : 0.0);
    }
    return point;
}

} // namespace

// Beside a client and a server that saturate the machine, whose traffic's softirq the kernel
// charges to them, a CPU hog's time is other load, as is every other process's; the point is
// noisy for it. A point without the hog sees only the background. The same holds with the CPU
// profile taken (its sampler is the client's own thread, its interrupts the kernel's).
void TestCpuNoise::cpuHogMarksPointNoisy() {
    app::HttpServer http(testing::httpConfig(512));
    QVERIFY(testing::startServer(http));
    const HogPoint quiet = saturatedPoint(http, 0);
    const pid_t hog = startHog();
    QVERIFY(hog > 0);
    QTest::qWait(100); // running and placed before the window opens
    const HogPoint loaded = saturatedPoint(http, hog);
    const HogPoint profiled = saturatedPoint(http, hog, true);
    stopProcess(hog);
    http.stop();
    std::vector<const HogPoint*> points{&quiet, &loaded};
    // Refused here (unprivileged, perf_event_paranoid): the profile says why, and there is no
    // profiled point to judge.
    if (profiled.result.profile && profiled.result.profile->unavailable.isEmpty())
        points.push_back(&profiled);
    else
        qInfo("no profiled point: %s", profiled.result.profile
                                           ? qPrintable(profiled.result.profile->unavailable)
                                           : "no profile");
    for (const HogPoint* point : points) {
        QVERIFY(point->result.cpu && point->result.cpu->serverSeconds);
        QVERIFY2(point->lost.isEmpty(),
                 qPrintable(QStringLiteral("four windows in a row lost a process's CPU: ") +
                            point->lost));
        if (!saturated(*point))
            QSKIP("four points in a row did not saturate the machine: other processes held its "
                  "CPUs");
        const app::CpuUsage& cpu = *point->result.cpu;
        qInfo("%s: other load %.1f %%, every other task's runtime %.1f %% (the hog's %.1f %%); "
              "client %.1f %%, server %.1f %%, softirq %.1f %% of the machine, %llu requests",
              point == &quiet ? "quiet" : (point == &loaded ? "hog" : "hog, profiled"),
              point->otherPercent, point->truthPercent, point->hogPercent,
              cpu.percentOfMachine(point->result.clientCpuSeconds),
              cpu.percentOfMachine(*cpu.serverSeconds), cpu.percentOfMachine(cpu.softirq),
              qulonglong(point->result.complete));
        QVERIFY2(std::abs(point->otherPercent - point->truthPercent) <= 5,
                 qPrintable(QStringLiteral("other load %1 %, truth %2 %")
                                .arg(point->otherPercent)
                                .arg(point->truthPercent)));
    }
    // On a quiet machine the hog has a third of it; on a busy one it shares its CPU.
    QVERIFY2(loaded.hogPercent > 2, "the hog did not run");
    // The hog's point is noisy, for its other load, where the truth is beyond the threshold.
    app::PointResult judged = loaded.result;
    app::judgeNoise(judged, app::kDefaultNoiseThresholdPercent);
    if (loaded.truthPercent > app::kDefaultNoiseThresholdPercent + 5)
        QVERIFY2(judged.noise.contains(QStringLiteral("other load")), qPrintable(judged.noise));
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

// Through a userland relay each request crosses loopback twice (client to relay, relay to
// server), so the kernel moves about twice the TCP segments per request, and the softirq that
// receives them (net_rx, in the sender's context on loopback) grows with them. Truths beside the
// product's figure: the namespace's own count of TCP segments sent (/proc/net/snmp OutSegs) and
// the machine's softirq ticks (/proc/stat), both read by the test around each point. The
// points' softirq is held to what /proc/stat counted around them, and the softirq per request
// through the relay over the direct one to a band around the segments' ratio.
void TestCpuNoise::softirqPerRequestHigherThroughProxy() {
    app::HttpServer http(testing::httpConfig(512));
    QVERIFY(testing::startServer(http));
    app::TcpProxy proxy(testing::proxyConfig(http.port()));
    QVERIFY(testing::startServer(proxy));

    double softirq[2] = {0, 0};
    double softirqAround[2] = {0, 0};
    double segments[2] = {0, 0};
    double server[2] = {0, 0};
    uint64_t requests[2] = {0, 0};
    // Six interleaved rounds of short points, so that drift of the machine falls on both modes
    // alike (three rounds of 700 ms spread the ratio more).
    for (int round = 0; round < 6; ++round) {
        for (int mode = 0; mode < 2; ++mode) {
            engine::LoadSpec spec = httpSpec(mode == 0 ? http.port() : proxy.port(), 4, 350ms);
            spec.serverCpu.threads = http.threadIds();
            if (mode == 1) {
                const std::vector<int> relay = proxy.threadIds();
                spec.serverCpu.threads.insert(spec.serverCpu.threads.end(), relay.begin(),
                                              relay.end());
            }
            const double softirqBefore = softirqSecondsOfProcStat();
            const double segmentsBefore = tcpSegmentsSent();
            const app::PointResult r = runPoint(std::move(spec));
            segments[mode] += tcpSegmentsSent() - segmentsBefore;
            softirqAround[mode] += softirqSecondsOfProcStat() - softirqBefore;
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
    const double segmentsDirect = segments[0] / double(requests[0]);
    const double segmentsProxied = segments[1] / double(requests[1]);
    qInfo("softirq per request: direct %.2f µs, through the proxy %.2f µs (%.2fx); TCP segments "
          "per request %.2f vs %.2f (%.2fx); softirq over the points %.3f, %.3f s, /proc/stat's "
          "around them %.3f, %.3f s; server CPU per request %.2f vs %.2f µs",
          direct, proxied, proxied / direct, segmentsDirect, segmentsProxied,
          segmentsProxied / segmentsDirect, softirq[0], softirq[1], softirqAround[0],
          softirqAround[1], server[0] * 1e6 / double(requests[0]),
          server[1] * 1e6 / double(requests[1]));
    // The truth itself: the relay's second connection doubles the segments per request.
    QVERIFY2(segmentsProxied > 1.6 * segmentsDirect && segmentsProxied < 2.4 * segmentsDirect,
             qPrintable(QStringLiteral("segments per request %1 direct, %2 through the proxy")
                            .arg(segmentsDirect)
                            .arg(segmentsProxied)));
    // The points' softirq is what /proc/stat counted around them (their windows lie inside the
    // test's), less the set-up and the ending (a few ms a point; 10 ms ticks).
    for (int mode = 0; mode < 2; ++mode)
        QVERIFY2(softirq[mode] <= softirqAround[mode] + 1e-9 &&
                     softirq[mode] >= 0.8 * softirqAround[mode] - 0.03,
                 qPrintable(QStringLiteral("%1: softirq %2 s over the points, /proc/stat's %3 s "
                                           "around them")
                                .arg(mode == 0 ? QStringLiteral("direct")
                                               : QStringLiteral("through the proxy"))
                                .arg(softirq[mode])
                                .arg(softirqAround[mode])));
    // Softirq per request grows with the segments, but as ticks count it (tens a mode) it is
    // known to some 30 %: over 16 runs at load 8-10 the ratio went from 1.15x to 4.5x for
    // twice the segments. Held to 1x-5x: more through the relay, and not out of proportion.
    // What the figure is worth is checked above, against /proc/stat over the same points.
    const double relative = (proxied / direct) / (segmentsProxied / segmentsDirect);
    QVERIFY2(relative > 0.5 && relative < 2.5,
             qPrintable(QStringLiteral("softirq per request %1 µs direct, %2 µs through the proxy "
                                       "(%3x); segments %4x")
                            .arg(direct)
                            .arg(proxied)
                            .arg(proxied / direct)
                            .arg(segmentsProxied / segmentsDirect)));
    QVERIFY(server[1] / double(requests[1]) > server[0] / double(requests[0]));
}

QTEST_GUILESS_MAIN(TestCpuNoise)
#include "tst_cpu_noise.moc"
