// LiveRate: the rate the Run page plots and `sweep` prints, per interval.
#include "app/stats/live_rate.h"

#include <QTest>

using namespace loadscope;

namespace {

engine::Progress snapshot(double elapsed, uint64_t sent, uint64_t received) {
    engine::Progress progress;
    progress.elapsedSeconds = elapsed;
    progress.bytesSent = sent;
    progress.bytesReceived = received;
    return progress;
}

} // namespace

class TestLiveRate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void requestsAreTheIntervalsRate() {
        app::LiveRate rate(false);
        engine::Progress progress;
        progress.elapsedSeconds = 3;
        progress.complete = 9000; // 3000/s overall: not what the interval says
        progress.intervalSeconds = 0.1;
        progress.intervalComplete = 250;
        QCOMPARE(*rate.next(progress), 2500.0);
    }

    void streamIsTheBytesMovedSinceTheLastSnapshot() {
        app::LiveRate rate(true);
        QVERIFY(!rate.next(snapshot(1.0, 1'000'000, 0))); // nothing before it
        // 250,000 bytes in 0.5 s = 4 Mbit/s, whatever came before.
        QCOMPARE(*rate.next(snapshot(1.5, 1'250'000, 0)), 4.0);
        // Bytes back count too: 100,000 + 25,000 in 0.25 s = 4 Mbit/s.
        QCOMPARE(*rate.next(snapshot(1.75, 1'350'000, 25'000)), 4.0);
    }

    void streamNeverGoesNegativeWhenCountersReset() {
        app::LiveRate rate(true);
        QVERIFY(!rate.next(snapshot(-0.5, 5'000'000, 0))); // warm-up
        QCOMPARE(*rate.next(snapshot(0.1, 100'000, 0)), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestLiveRate)
#include "tst_live_rate.moc"
