// Fixed-rate load against loopback servers whose behaviour is the truth:
// the achieved rate against the offered one, the latency from the intended
// start against the one from the actual send when the server stalls, and a
// client that cannot keep its schedule.
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "fixed_delay_server.h"
#include "handicapped_protocol.h"
#include "loopback_http_spec.h"

#include <QTest>
#include <algorithm>
#include <chrono>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <vector>

using namespace loadscope::engine;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::HandicappedProtocol;
using loadscope::testing::runToEnd;
using namespace std::chrono_literals;

namespace {

// How late this machine wakes a thread from an absolute timerfd in epoll_wait,
// the engine's own wake-up for a due request, in nanoseconds at `percentile`
// of `samples` 1 ms sleeps: the part of a fixed-rate send's lateness that no
// timer-driven client can avoid here (a virtual machine's is tens of µs).
int64_t timerWakeLatenessNs(double percentile, int samples = 200) {
    const int timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &ev);
    std::vector<int64_t> lateness;
    for (int i = 0; i < samples; ++i) {
        timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        const int64_t at = int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec + 1'000'000;
        itimerspec when{};
        when.it_value.tv_sec = at / 1'000'000'000;
        when.it_value.tv_nsec = at % 1'000'000'000;
        ::timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, nullptr);
        epoll_event out{};
        ::epoll_wait(epoll, &out, 1, 100);
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        lateness.push_back(int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec - at);
        uint64_t expirations = 0;
        [[maybe_unused]] const ssize_t got = ::read(timer, &expirations, sizeof expirations);
    }
    ::close(epoll);
    ::close(timer);
    std::sort(lateness.begin(), lateness.end());
    return lateness[std::min(lateness.size() - 1, size_t(percentile / 100 * double(samples)))];
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kInstrumented = true; // several times slower: rates and times say nothing
#else
constexpr bool kInstrumented = false;
#endif

// The precise bounds (achieved within 1 %, uncorrected p99 under 5 ms) hold
// on a quiet machine; with LOADSCOPE_STRICT_TIMING=1 (tests/bench/
// fixed_rate_accuracy.sh) they are checked. By default the bounds are ones a
// shared machine keeps and a wrong engine still breaks: a closed loop ignoring
// the rate, or an uncorrected latency that saw the 500 ms stall.
bool strictTiming() {
    return qEnvironmentVariableIntValue("LOADSCOPE_STRICT_TIMING") == 1;
}

LoadSpec rateSpec(uint16_t port, uint32_t concurrency, double rate) {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, concurrency);
    spec.rate = rate;
    return spec;
}

double ms(int64_t ns) {
    return double(ns) / 1e6;
}

QString figures(const RunResult& r) {
    return QStringLiteral("achieved %1/s of %2/s offered, %3 complete in %4 s, largest backlog %5, "
                          "corrected p50 %6 ms p99 %7 ms, uncorrected p50 %8 ms p99 %9 ms")
               .arg(r.requestsPerSecond(), 0, 'f', 1)
               .arg(r.offeredRate, 0, 'f', 1)
               .arg(r.complete)
               .arg(r.durationSeconds, 0, 'f', 3)
               .arg(r.maxBacklog)
               .arg(ms(r.total.valueAtPercentile(50)), 0, 'f', 3)
               .arg(ms(r.total.valueAtPercentile(99)), 0, 'f', 3)
               .arg(ms(r.uncorrected.valueAtPercentile(50)), 0, 'f', 3)
               .arg(ms(r.uncorrected.valueAtPercentile(99)), 0, 'f', 3) +
           (r.clientSaturated ? QStringLiteral(" (client saturated)") : QString());
}

} // namespace

class TestFixedRate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The schedule sets the pace, so a counted run cannot end before its
    // n-th intended start, (n - 1) gaps after the first; every request has
    // both latencies, and the corrected one is never the shorter. Short
    // enough to run under the sanitizers, which check the schedule's paths.
    void aCountedRunTakesTheSchedulesTime_data() {
        QTest::addColumn<int>("arrival");
        QTest::addColumn<bool>("keepAlive");
        QTest::newRow("constant") << int(Arrival::Constant) << true;
        QTest::newRow("poisson") << int(Arrival::Poisson) << true;
        QTest::newRow("a connection per request") << int(Arrival::Constant) << false;
    }
    void aCountedRunTakesTheSchedulesTime() {
        QFETCH(int, arrival);
        QFETCH(bool, keepAlive);
        FixedDelayServer server({1ms, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), 4, 1000);
        if (!keepAlive) {
            HttpRequestSpec request;
            request.host = "127.0.0.1:" + std::to_string(server.port());
            request.keepAlive = false;
            spec.protocol = std::make_shared<HttpProtocol>(request);
        }
        spec.arrival = Arrival(arrival);
        spec.requests = 300;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 300u);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.uncorrected.count(), r.total.count());
        QCOMPARE(r.offeredRate, 1000.0);
        QVERIFY2(r.total.valueAtPercentile(50) >= r.uncorrected.valueAtPercentile(50),
                 qPrintable(figures(r)));
        QVERIFY2(r.total.max() >= r.uncorrected.max(), qPrintable(figures(r)));
        // Poisson's 300th arrival is a sum of 300 gaps: 0.3 s with a 6 % sd.
        const double earliest = arrival == int(Arrival::Constant) ? 0.299 : 0.22;
        QVERIFY2(r.durationSeconds >= earliest, qPrintable(figures(r)));
    }

    // Achieved within 1 % of offered. The window is 2 s, not 5: at the
    // lowest rate 1 % is still 20 requests, while constant arrival puts
    // exactly rate x window intended starts in the window (to one), and the
    // requests in flight at its edges are rate x latency, a fraction of one
    // at 1k/s and about 2 at 50k/s (loopback, no delay). So a miss of 1 % is
    // the engine falling behind, not chance, and the six points add 13 s
    // to the CI instead of 31. 50k/s, where client and server share this
    // VM's two CPUs at full speed, runs only with LOADSCOPE_STRICT_TIMING: on
    // an otherwise quiet VM it fell to 24,700/s in one CI run in three (the
    // vCPUs taken away for tens of milliseconds), which says nothing of the
    // engine; the benchmark runs it with the precise bound.
    void achievedRateIsTheOfferedRate_data() {
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("concurrency");
        const std::vector<double> rates = strictTiming()
                                              ? std::vector<double>{1000.0, 10000.0, 50000.0}
                                              : std::vector<double>{1000.0, 10000.0};
        for (double rate : rates)
            for (int c : {10, 100})
                QTest::addRow("%gk/s c=%d", rate / 1000, c) << rate << c;
    }
    void achievedRateIsTheOfferedRate() {
        QFETCH(double, rate);
        QFETCH(int, concurrency);
        if (kInstrumented)
            QSKIP("rates are not meaningful in a sanitizer build");
        FixedDelayServer server({0ns, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), uint32_t(concurrency), rate);
        spec.warmup = 200ms;
        spec.duration = 2s;
        const RunResult r = runToEnd(spec);
        qInfo("%s", qPrintable(figures(r)));
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.offeredRate, rate);
        const double tolerance = strictTiming() ? 0.01 : 0.2;
        QVERIFY2(std::abs(r.requestsPerSecond() / rate - 1.0) <= tolerance, qPrintable(figures(r)));
    }

    // Coordinated omission: the server answers in 1 ms but sends nothing for
    // 500 ms of every second. At 1000/s, the requests due in a stall wait
    // for it on the schedule, so about a third of them are over 200 ms from
    // their intended start; from their actual send only the few in flight
    // when a stall began (Little: ~1 per stall) waited, the rest went out
    // after it and took 1 ms. The schedule fell ~500 requests behind in each.
    void correctedLatencyShowsAStallTheUncorrectedHides() {
        FixedDelayServer::Options options{1ms, 100, 0, 0};
        options.stallPeriod = 1s;
        options.stallLength = 500ms;
        FixedDelayServer server(options);
        LoadSpec spec = rateSpec(server.port(), 4, 1000);
        spec.warmup = 200ms;
        spec.duration = 2s; // holds the stalls at 0.5-1 s and 1.5-2 s of the server's clock
        const RunResult r = runToEnd(spec);
        qInfo("%s", qPrintable(figures(r)));
        QCOMPARE(r.failed, 0u);
        QVERIFY2(ms(r.total.valueAtPercentile(99)) > 200, qPrintable(figures(r)));
        QVERIFY2(r.maxBacklog > 400, qPrintable(figures(r)));
        if (kInstrumented)
            QSKIP("the uncorrected bound is not meaningful in a sanitizer build");
        QVERIFY2(ms(r.uncorrected.valueAtPercentile(99)) < (strictTiming() ? 5 : 100),
                 qPrintable(figures(r)));
    }

    // Without a stall the schedule is kept, and both latencies are the
    // server's 1 ms and the loopback: what separates them is only how late
    // the client's timer sent each request. The median: the 90th and 99th of
    // a 1000-request run are its 100th and 10th-longest waits for a CPU, the
    // machine's figures more than the client's.
    //
    // At 50/s the gaps (20 ms) are longer than the loop's 10 ms tick: the
    // worker sleeps through each in more than one wait, the last ending at
    // the due time itself (the schedule's timer, which is also the tick at
    // a fixed rate). A loop that polled instead of sleeping
    // would be on its CPU whenever given it (the CPU bound: about 150
    // wake-ups a second of tens of microseconds each are well under 1 % of
    // a CPU); one that slept through a due time to its tick would send up
    // to 10 ms late. Constant arrival puts exactly rate x window intended
    // starts in the window, and at most one request is in flight at its edges.
    void withoutAStallBothLatenciesAgree_data() {
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<int>("seconds");
        QTest::addColumn<double>("cpuShare"); // the most of the run its thread may be on a CPU
        // LoadSpec::timerSlack: a send due within it of the one that is due
        // goes with it, early. At 4k/s (a request every 250 us) with 0.5 ms,
        // three go out together: the server sees bursts, two of three gaps
        // between arrivals a few microseconds long, and the latencies are
        // those of the sends, unchanged.
        QTest::addColumn<int>("slackUs");
        QTest::addColumn<double>("medianGapBelowNs"); // at the server; 0: not checked
        QTest::newRow("1k/s") << 1000.0 << 4 << 1 << 0.5 << 0 << 0.0;
        QTest::newRow("4k/s, each send at its time") << 4000.0 << 16 << 1 << 0.5 << 0 << 0.0;
        QTest::newRow("4k/s, 0.5 ms slack: three sends to a wake-up")
            << 4000.0 << 16 << 1 << 0.5 << 500 << 100'000.0;
        QTest::newRow("50/s, gaps longer than the tick") << 50.0 << 2 << 2 << 0.1 << 0 << 0.0;
    }
    void withoutAStallBothLatenciesAgree() {
        QFETCH(double, rate);
        QFETCH(int, concurrency);
        QFETCH(int, seconds);
        QFETCH(double, cpuShare);
        QFETCH(int, slackUs);
        QFETCH(double, medianGapBelowNs);
        if (kInstrumented)
            QSKIP("latency figures are not meaningful in a sanitizer build");
        FixedDelayServer server({1ms, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), uint32_t(concurrency), rate);
        spec.warmup = 200ms;
        spec.duration = std::chrono::seconds(seconds);
        spec.timerSlack = std::chrono::microseconds(slackUs);
        // The premise is a run the machine did not stall: a backlog beyond
        // one due request per connection means the client was held up (on
        // this shared VM, for tens of ms now and then), and then the
        // corrected latency rightly grows. Such a run is measured again, at
        // most twice; the bound below holds for the first one without.
        RunResult r;
        QStringList stalled;
        for (int attempt = 0; attempt < 3; ++attempt) {
            r = runToEnd(spec);
            if (r.maxBacklog <= uint64_t(concurrency))
                break;
            stalled << figures(r);
        }
        if (r.maxBacklog > uint64_t(concurrency))
            QSKIP(qPrintable(QStringLiteral("the machine stalled every run: ") +
                             stalled.join(QStringLiteral("; "))));
        if (!stalled.isEmpty())
            qInfo("measured again after a stall: %s",
                  qPrintable(stalled.join(QStringLiteral("; "))));
        QCOMPARE(r.failed, 0u);
        const double p = 50;
        const double corrected = double(r.total.valueAtPercentile(p));
        const double uncorrected = double(r.uncorrected.valueAtPercentile(p));
        // Within 5 % (strict; 20 % on a shared machine), beyond the
        // machine's own timer wake-up delay at the same percentile,
        // measured here and now.
        const double wake = double(timerWakeLatenessNs(p));
        const QString what = QStringLiteral("p%1 (timer wake-up %2 ms), client CPU %3 s: ")
                                 .arg(p)
                                 .arg(wake / 1e6, 0, 'f', 3)
                                 .arg(r.clientCpuSeconds, 0, 'f', 3) +
                             figures(r);
        qInfo("%s", qPrintable(what));
        QVERIFY2(corrected >= uncorrected, qPrintable(what));
        QVERIFY2(r.total.min() >= r.uncorrected.min(), qPrintable(what));
        // The server answers 1 ms after a request arrived: no response,
        // whenever the client read it, arrived sooner after its send. The
        // send's time is read when sendto returns, and over loopback the
        // server has the request before that: up to the length of that
        // system call (50 us allowed) the response can look early.
        QVERIFY2(r.uncorrected.min() >= 1'000'000 - 50'000, qPrintable(what));
        const double share = strictTiming() ? 0.05 : 0.2;
        QVERIFY2(corrected - uncorrected <= share * uncorrected + wake, qPrintable(what));
        // The slack is used: the requests reach the server in bursts (a
        // machine's lateness only bunches them more).
        const double medianGap = double(server.arrivalGapPercentile(50));
        if (medianGapBelowNs > 0)
            QVERIFY2(medianGap < medianGapBelowNs,
                     qPrintable(QStringLiteral("median gap between arrivals %1 us; ")
                                    .arg(medianGap / 1e3, 0, 'f', 1) +
                                what));
        const double expected = rate * seconds;
        QVERIFY2(std::abs(double(r.complete) - expected) <= 1 + share * expected, qPrintable(what));
        QVERIFY2(r.clientCpuSeconds < cpuShare * r.durationSeconds, qPrintable(what));
    }

    // Once a counted run's budget is spent, a kept-alive connection with nothing left to send
    // stays closed while the last answers come: the server accepts the run's connections and
    // no more. (At 50/s and a 30 ms answer, the run's last request is in flight for 30 ms
    // after the schedule's next time, when the idle connections find the budget spent.)
    void aSpentBudgetOpensNoMoreConnections() {
        FixedDelayServer server({30ms, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), 4, 50);
        spec.requests = 10;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 10u);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(server.answered(), 10u);
        QCOMPARE(server.accepted(), 4u);
        QCOMPARE(r.connectionsOpened, 4u);
    }

    // A client that holds its own loop cannot keep the schedule while its
    // other connections sit idle: connection 0 sleeps 20 ms after each of
    // its responses, so requests due meanwhile go out late, and the result says so.
    void aClientThatFallsBehindSaysSo() {
        FixedDelayServer server({1ms, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), 8, 1000);
        spec.protocol = std::make_shared<HandicappedProtocol>(spec.protocol, 20ms);
        spec.duration = 1s;
        const RunResult r = runToEnd(spec);
        qInfo("%s", qPrintable(figures(r)));
        QVERIFY2(r.clientSaturated, qPrintable(figures(r)));
    }
};

QTEST_GUILESS_MAIN(TestFixedRate)
#include "tst_fixed_rate.moc"
