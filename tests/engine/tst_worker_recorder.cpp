// WorkerRecorder: responses recorded once (one-time) or in every histogram
// end in the same result as recording each in all four, whatever the
// publishing rhythm; the mailbox's interval sees every response.
#include "engine/tcp_protocol.h"
#include "engine/worker_recorder.h"

#include <QTest>
#include <random>

using namespace loadscope::engine;
using namespace loadscope::engine::detail;

namespace {

struct Naive {
    Histogram total, connect, waiting, processing;

    void record(const InFlight& request, int64_t now) {
        const int64_t t = now - request.startNs;
        total.record(t);
        connect.record(request.connectNs);
        waiting.record(std::max<int64_t>(0, request.firstByteNs - request.sentNs));
        processing.record(std::max<int64_t>(0, t - request.connectNs));
    }
};

LoadSpec tcpRrSpec() {
    LoadSpec spec;
    spec.protocol = std::make_shared<TcpRrProtocol>(TcpRrSpec{});
    return spec;
}

// A recorder for a TCP_RR run, with a session to hand it. Members in the
// order they are built: the recorder reads the spec's protocol.
struct RecorderUnderTest {
    LoadSpec spec = tcpRrSpec();
    SharedRunState shared{spec};
    WorkerRecorder recorder{shared, *spec.protocol};
    std::unique_ptr<ProtocolSession> session = spec.protocol->newSession(0, 1);
};

} // namespace

class TestWorkerRecorder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resultEqualsRecordingEveryHistogram_data() {
        QTest::addColumn<int>("publishEvery");
        QTest::newRow("never before finish") << 0;
        QTest::newRow("every response") << 1;
        QTest::newRow("every 97 responses") << 97;
    }
    void resultEqualsRecordingEveryHistogram() {
        QFETCH(int, publishEvery);
        RecorderUnderTest under;
        WorkerRecorder& recorder = under.recorder;
        recorder.reserveHistograms();

        Naive expected;
        std::mt19937_64 random(7);
        std::uniform_int_distribution<int64_t> duration(1, 5'000'000);
        int64_t now = 1'000'000'000;
        constexpr int kResponses = 3000;
        int oneTime = 0;
        for (int i = 0; i < kResponses; ++i) {
            InFlight request;
            request.startNs = now;
            request.sentNs = now;
            switch (random() % 3) {
            case 0: // one time: kept-alive, sent at once, read in one go
                now += duration(random);
                request.firstByteNs = now;
                ++oneTime;
                break;
            case 1: // the first on its connection: carries the connect time
                request.connectNs = duration(random);
                request.sentNs = now + request.connectNs;
                now = request.sentNs + duration(random);
                request.firstByteNs = now;
                break;
            default: // read in several parts: the first byte came earlier
                request.firstByteNs = now + duration(random);
                now = request.firstByteNs + duration(random);
                break;
            }
            recorder.response(request, ResponseInfo{}, now, *under.session);
            expected.record(request, now);
            if (publishEvery > 0 && (i + 1) % publishEvery == 0)
                recorder.publish();
        }
        QVERIFY(oneTime > kResponses / 4); // both paths are exercised
        QVERIFY(oneTime < kResponses / 2);
        recorder.finish();

        const RunResult& r = recorder.result();
        QCOMPARE(r.complete, uint64_t(kResponses));
        QVERIFY(r.total == expected.total);
        QVERIFY(r.connect == expected.connect);
        QVERIFY(r.waiting == expected.waiting);
        QVERIFY(r.processing == expected.processing);
        QCOMPARE(r.connect.valueAtPercentile(0), int64_t(0));
        WorkerMailbox& box = recorder.mailbox();
        std::lock_guard lock(box.mutex);
        QVERIFY(box.interval == expected.total);
        QCOMPARE(box.intervalComplete, uint64_t(kResponses));
    }

    void finishingTwiceAddsNothing() {
        RecorderUnderTest under;
        WorkerRecorder& recorder = under.recorder;
        InFlight request;
        request.startNs = request.sentNs = 1000;
        request.firstByteNs = 5000;
        recorder.response(request, ResponseInfo{}, 5000, *under.session);
        recorder.finish();
        recorder.finish();
        QCOMPARE(recorder.result().total.count(), uint64_t(1));
        QCOMPARE(recorder.result().connect.count(), uint64_t(1));
        QCOMPARE(recorder.result().total.max(), int64_t(4000));
    }
};

QTEST_GUILESS_MAIN(TestWorkerRecorder)
#include "tst_worker_recorder.moc"
