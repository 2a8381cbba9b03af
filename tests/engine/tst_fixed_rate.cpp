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
#include <chrono>

using namespace loadscope::engine;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::HandicappedProtocol;
using namespace std::chrono_literals;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kInstrumented = true; // several times slower: rates and times say nothing
#else
constexpr bool kInstrumented = false;
#endif

LoadSpec rateSpec(uint16_t port, uint32_t concurrency, double rate) {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, concurrency);
    spec.rate = rate;
    return spec;
}

RunResult runToEnd(const LoadSpec& spec) {
    LoadRun run(spec);
    run.start();
    return run.wait();
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
    // to the CI instead of 31.
    void achievedRateIsTheOfferedRate_data() {
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("concurrency");
        for (double rate : {1000.0, 10000.0, 50000.0})
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
        QVERIFY2(std::abs(r.requestsPerSecond() / rate - 1.0) <= 0.01, qPrintable(figures(r)));
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
            QSKIP("the 5 ms bound is not meaningful in a sanitizer build");
        QVERIFY2(ms(r.uncorrected.valueAtPercentile(99)) < 5, qPrintable(figures(r)));
    }

    // Without a stall the schedule is kept, and both latencies are the
    // server's 1 ms and the loopback: what separates them is only how late
    // the client's timer sent each request. The median and the 90th
    // percentile: the 99th of a 1000-request run is its 10th-longest wait
    // for a CPU, the machine's figure more than the client's.
    void withoutAStallBothLatenciesAgree() {
        if (kInstrumented)
            QSKIP("latency figures are not meaningful in a sanitizer build");
        FixedDelayServer server({1ms, 100, 0, 0});
        LoadSpec spec = rateSpec(server.port(), 4, 1000);
        spec.warmup = 200ms;
        spec.duration = 1s;
        const RunResult r = runToEnd(spec);
        qInfo("%s", qPrintable(figures(r)));
        QCOMPARE(r.failed, 0u);
        for (double p : {50.0, 90.0}) {
            const double corrected = double(r.total.valueAtPercentile(p));
            const double uncorrected = double(r.uncorrected.valueAtPercentile(p));
            QVERIFY2(std::abs(corrected / uncorrected - 1.0) <= 0.05,
                     qPrintable(QStringLiteral("p%1: ").arg(p) + figures(r)));
        }
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
