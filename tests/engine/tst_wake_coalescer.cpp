// The pause a closed-loop worker takes before it waits for its sockets: only
// while responses come often enough for it to gather some, never more than
// a hundredth of the mean latency, and back to none as the load drops.
// The loops fed here are closed: c connections, each with one request out,
// complete c / latency responses a second (Little's law).
#include "engine/wake_coalescer.h"

#include <QTest>

using loadscope::engine::detail::WakeCoalescer;

namespace {

constexpr int64_t kPeriodNs = 25'000'000; // the worker's update period
constexpr int64_t kUs = 1000;
constexpr int64_t kMs = 1'000'000;

// One period of a closed loop: its responses, then the update at its end.
void feedPeriod(WakeCoalescer& coalescer, int64_t& now, int connections, int64_t latencyNs) {
    const int64_t responses = int64_t(connections) * kPeriodNs / latencyNs;
    for (int64_t i = 0; i < responses; ++i)
        coalescer.onResponse(latencyNs);
    now += kPeriodNs;
    coalescer.update(now);
}

// A coalescer after two periods of such a loop (the first update only starts
// the clock).
WakeCoalescer afterLoop(int connections, int64_t latencyNs) {
    WakeCoalescer coalescer(true);
    int64_t now = 1 * kMs;
    coalescer.update(now);
    feedPeriod(coalescer, now, connections, latencyNs);
    feedPeriod(coalescer, now, connections, latencyNs);
    return coalescer;
}

} // namespace

class TestWakeCoalescer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noPauseBeforeAPeriodIsMeasured() {
        WakeCoalescer coalescer(true);
        QCOMPARE(coalescer.pauseNs(), 0);
        for (int i = 0; i < 1000; ++i)
            coalescer.onResponse(3 * kMs);
        coalescer.update(5 * kMs); // the first update: no period behind it yet
        QCOMPARE(coalescer.pauseNs(), 0);
    }

    // 5 connections of 10 streams against a saturated nginx: 50 requests out,
    // 3 ms each, 16 700 responses a second.
    void aSaturatedServerGetsAPause() {
        const WakeCoalescer coalescer = afterLoop(50, 3 * kMs);
        QVERIFY2(coalescer.pauseNs() >= WakeCoalescer::kMinPauseNs,
                 qPrintable(QString::number(coalescer.pauseNs())));
        QVERIFY(coalescer.pauseNs() <= WakeCoalescer::kMaxPauseNs);
    }

    // A hundredth of the latency at most, at any latency and load that pause.
    void aPauseIsAtMostAHundredthOfTheLatency_data() {
        QTest::addColumn<int>("connections");
        QTest::addColumn<qint64>("latencyNs");
        QTest::newRow("c=50, 1 ms") << 50 << qint64(1 * kMs);
        QTest::newRow("c=100, 1.5 ms") << 100 << qint64(1500 * kUs);
        QTest::newRow("c=64, 2 ms") << 64 << qint64(2 * kMs);
        QTest::newRow("c=1000, 40 ms") << 1000 << qint64(40 * kMs);
    }
    void aPauseIsAtMostAHundredthOfTheLatency() {
        QFETCH(int, connections);
        QFETCH(qint64, latencyNs);
        const WakeCoalescer coalescer = afterLoop(connections, latencyNs);
        QVERIFY2(coalescer.pauseNs() > 0, "these loads gather responses in a pause");
        QVERIFY2(
            coalescer.pauseNs() * 100 <= latencyNs,
            qPrintable(
                QStringLiteral("pause %1 ns at %2 ns").arg(coalescer.pauseNs()).arg(latencyNs)));
    }

    // Where a pause would gather nothing or cost a visible share of a cycle.
    void noPauseWhereItSavesNothing_data() {
        QTest::addColumn<int>("connections");
        QTest::addColumn<qint64>("latencyNs");
        // A quick server: a pause worth its timer would be most of a cycle.
        QTest::newRow("c=1, 20 us") << 1 << qint64(20 * kUs);
        QTest::newRow("c=16, 400 us") << 16 << qint64(400 * kUs);
        // A slow server with few connections: a response every 5 ms.
        QTest::newRow("c=2, 10 ms") << 2 << qint64(10 * kMs);
        QTest::newRow("c=8, 10 ms") << 8 << qint64(10 * kMs);
    }
    void noPauseWhereItSavesNothing() {
        QFETCH(int, connections);
        QFETCH(qint64, latencyNs);
        QCOMPARE(afterLoop(connections, latencyNs).pauseNs(), 0);
    }

    // The pause follows the last period: a server that stops answering, or
    // a load that lightens, has none at the next update.
    void thePauseEndsWithTheLoad() {
        WakeCoalescer coalescer = afterLoop(50, 3 * kMs);
        QVERIFY(coalescer.pauseNs() > 0);
        int64_t now = 100 * kMs;
        coalescer.update(now); // a period with no response
        QCOMPARE(coalescer.pauseNs(), 0);
        feedPeriod(coalescer, now, 50, 3 * kMs);
        QVERIFY(coalescer.pauseNs() > 0);
        feedPeriod(coalescer, now, 2, 10 * kMs);
        QCOMPARE(coalescer.pauseNs(), 0);
    }
};

QTEST_APPLESS_MAIN(TestWakeCoalescer)
#include "tst_wake_coalescer.moc"
