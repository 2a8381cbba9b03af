// The engine's UDP against a scripted peer (scripted_udp_peer.h) that counts
// what it received and what it did to the answers: exact counts against an
// echo, lost requests counted (never sent again), late, repeated, reordered
// and stray answers each in their own count, a refused port, and udp-stream's
// count of what the sink received, asked in the stream itself.
#include "engine/load_run.h"
#include "engine/udp_protocol.h"
#include "scripted_udp_peer.h"

#include <QElapsedTimer>
#include <QTest>
#include <chrono>
#include <numeric>

using namespace loadscope::engine;
using loadscope::testing::ScriptedUdpPeer;
using namespace std::chrono_literals;
using Script = ScriptedUdpPeer::Script;

namespace {

LoadSpec udpRrSpec(uint16_t port, uint32_t request, uint32_t response, uint32_t connections,
                   uint64_t requests) {
    LoadSpec spec;
    spec.protocol = std::make_shared<UdpRrProtocol>(UdpRrSpec{request, response});
    spec.target = *SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = connections;
    spec.threads = 1;
    spec.requests = requests;
    spec.requestTimeout = 1s;
    return spec;
}

LoadSpec udpStreamSpec(uint16_t port, uint32_t messageSize, uint32_t connections,
                       std::chrono::milliseconds duration) {
    LoadSpec spec;
    spec.protocol = std::make_shared<UdpStreamProtocol>(UdpStreamSpec{messageSize});
    spec.target = *SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = connections;
    spec.threads = 1;
    spec.duration = duration;
    spec.requestTimeout = 1s;
    return spec;
}

RunResult runToEnd(const LoadSpec& spec) {
    LoadRun run(spec);
    run.start();
    return run.wait();
}

uint64_t lost(const RunResult& r) {
    return r.errors[size_t(ErrorClass::Lost)];
}

} // namespace

class TestUdpLoad : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exactCountsAgainstAnEcho_data() {
        QTest::addColumn<int>("request");
        QTest::addColumn<int>("response");
        QTest::addColumn<int>("connections");
        QTest::addColumn<int>("pipeline");
        QTest::newRow("64,64 one socket") << 64 << 64 << 1 << 1;
        QTest::newRow("16,200 four sockets") << 16 << 200 << 4 << 1;
        QTest::newRow("1,1 no sequence numbers") << 1 << 1 << 2 << 1;
        QTest::newRow("32,32 burst 3") << 32 << 32 << 2 << 4;
    }
    void exactCountsAgainstAnEcho() {
        QFETCH(int, request);
        QFETCH(int, response);
        QFETCH(int, connections);
        QFETCH(int, pipeline);
        constexpr uint64_t n = 3000;
        Script script;
        script.answerBytes = size_t(response);
        ScriptedUdpPeer peer(script);
        LoadSpec spec =
            udpRrSpec(peer.port(), uint32_t(request), uint32_t(response), uint32_t(connections), n);
        spec.pipeline = uint32_t(pipeline);
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, n);
        QCOMPARE(r.failed, 0u);
        // Every request was sent once, and the peer saw each.
        QCOMPARE(peer.received(), n);
        QCOMPARE(r.bytesSent, n * uint64_t(request));
        QCOMPARE(r.bytesTotal, n * uint64_t(response));
        QCOMPARE(r.total.count(), n);
        QCOMPARE(r.answersDuplicate + r.answersLate + r.answersStray + r.answersOutOfOrder, 0u);
        QCOMPARE(r.connectionsOpened, uint64_t(connections));
        QVERIFY(!r.unreachable);
    }

    void lostRequestsAreCountedNeverResent() {
        // Every 10th request goes unanswered: each is lost after the timeout, and the
        // socket goes on with the next request instead of sending it again.
        Script script;
        script.dropEvery = 10;
        ScriptedUdpPeer peer(script);
        LoadSpec spec = udpRrSpec(peer.port(), 8, 8, 4, 1000);
        spec.requestTimeout = 50ms;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 1000u);
        QCOMPARE(peer.received(), 1000u);
        QCOMPARE(peer.dropped(), 100u);
        QCOMPARE(lost(r), peer.dropped());
        QCOMPARE(r.failed, lost(r));
        QCOMPARE(r.answersLate, 0u);
    }

    void lateAnswersAreLostThenLate() {
        // Every 10th answer comes 150 ms late against a 50 ms timeout: its request is lost,
        // and the answer, when it comes, completes nothing.
        Script script;
        script.delayEvery = 10;
        script.delay = 150ms;
        ScriptedUdpPeer peer(script);
        LoadSpec spec = udpRrSpec(peer.port(), 8, 8, 2, 400);
        spec.requestTimeout = 50ms;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 400u);
        QCOMPARE(peer.delayed(), 40u);
        QCOMPARE(lost(r), peer.delayed());
        // The late answers of the run's last 150 ms come after it ended: three a socket at
        // most, each lost request holding its socket 50 ms.
        QVERIFY2(r.answersLate <= peer.delayed() && r.answersLate + 6 >= peer.delayed(),
                 qPrintable(QString::number(r.answersLate)));
        QCOMPARE(r.answersDuplicate + r.answersStray, 0u);
    }

    void repeatedAnswersAreDuplicates() {
        Script script;
        script.duplicate = true;
        ScriptedUdpPeer peer(script);
        const RunResult r = runToEnd(udpRrSpec(peer.port(), 8, 8, 1, 1000));
        QCOMPARE(r.complete, 1000u);
        QCOMPARE(r.failed, 0u);
        // Each repeat is read before the next answer; the last one after the run ended.
        QCOMPARE(r.answersDuplicate, 999u);
        QCOMPARE(r.answersLate + r.answersStray + r.answersOutOfOrder, 0u);
    }

    void swappedAnswersAreOutOfOrder() {
        // Two requests outstanding; the peer answers each pair second one first.
        Script script;
        script.swapPairs = true;
        ScriptedUdpPeer peer(script);
        LoadSpec spec = udpRrSpec(peer.port(), 8, 8, 1, 1000);
        spec.pipeline = 2;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 1000u);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.answersOutOfOrder, 500u);
        QCOMPARE(r.answersDuplicate + r.answersLate + r.answersStray, 0u);
    }

    void strayAnswersCompleteNothing() {
        Script script;
        script.strayEvery = 1;
        ScriptedUdpPeer peer(script);
        const RunResult r = runToEnd(udpRrSpec(peer.port(), 8, 8, 1, 500));
        QCOMPARE(r.complete, 500u);
        QCOMPARE(r.failed, 0u);
        QVERIFY2(r.answersStray == 499 || r.answersStray == 500,
                 qPrintable(QString::number(r.answersStray)));
    }

    void answerOfAnotherSizeIsAnException() {
        Script script;
        script.answerBytes = 16;
        ScriptedUdpPeer peer(script);
        const RunResult r = runToEnd(udpRrSpec(peer.port(), 8, 8, 1, 100));
        QCOMPARE(r.complete, 100u);
        QCOMPARE(r.failed, 100u);
        QCOMPARE(r.errors[size_t(ErrorClass::Exception)], 100u);
        QVERIFY(r.firstError.find("16 bytes") != std::string::npos);
    }

    void refusedPortIsUnreachable() {
        // A port nobody holds: the kernel answers the first datagram with ICMP.
        uint16_t port = 0;
        {
            ScriptedUdpPeer gone{Script{}};
            port = gone.port();
        }
        QElapsedTimer clock;
        clock.start();
        LoadSpec spec = udpRrSpec(port, 8, 8, 2, 0);
        spec.requests = 0;
        spec.duration = 5s;
        const RunResult r = runToEnd(spec);
        QVERIFY(r.unreachable);
        QVERIFY2(r.firstError.find("refused") != std::string::npos, r.firstError.c_str());
        QVERIFY(clock.elapsed() < 2000);
    }

    void fixedRate() {
        ScriptedUdpPeer peer{Script{}};
        LoadSpec spec = udpRrSpec(peer.port(), 8, 8, 4, 0);
        spec.requests = 0;
        spec.duration = 500ms;
        spec.rate = 2000;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.offeredRate, 2000.0);
        // 1000 due in the half second; those in flight at its end are not counted.
        QVERIFY2(r.complete >= 900 && r.complete <= 1001, qPrintable(QString::number(r.complete)));
        QVERIFY(peer.received() >= r.complete && peer.received() <= r.complete + 4);
    }

    void streamAsksTheSinkWhatItReceived() {
        Script script;
        script.sink = true;
        script.messageBytes = 200;
        ScriptedUdpPeer peer(script);
        const RunResult r = runToEnd(udpStreamSpec(peer.port(), 200, 2, 300ms));
        QCOMPARE(r.sinkReports, 2u);
        QVERIFY(r.sinkReported());
        // Without a warm-up each socket sends under one stream id: the sink's counts.
        const auto streams = peer.streams();
        QCOMPARE(streams.size(), size_t(2));
        const uint64_t received =
            std::accumulate(streams.begin(), streams.end(), uint64_t(0),
                            [](uint64_t sum, const auto& stream) { return sum + stream.second; });
        QCOMPARE(r.sinkDatagrams, received);
        QCOMPARE(r.sinkBytes, received * 200);
        QVERIFY(r.datagramsSent >= r.sinkDatagrams);
        QCOMPARE(r.bytesSent, r.datagramsSent * 200);
        QVERIFY(r.datagramsSent > 0);
    }

    void streamWarmUpIsNotCounted() {
        // The measured stretch gets stream ids of its own: what the sink received under the
        // warm-up's is left out.
        Script script;
        script.sink = true;
        script.messageBytes = 100;
        ScriptedUdpPeer peer(script);
        LoadSpec spec = udpStreamSpec(peer.port(), 100, 2, 300ms);
        spec.warmup = 150ms;
        const RunResult r = runToEnd(spec);
        QVERIFY(r.sinkReported());
        const auto streams = peer.streams();
        QCOMPARE(streams.size(), size_t(4));
        std::vector<uint64_t> counts;
        for (const auto& stream : streams)
            counts.push_back(stream.second);
        bool pairMatches = false;
        for (size_t i = 0; i < counts.size(); ++i)
            for (size_t j = i + 1; j < counts.size(); ++j)
                pairMatches = pairMatches || counts[i] + counts[j] == r.sinkDatagrams;
        QVERIFY2(pairMatches, qPrintable(QString::number(r.sinkDatagrams)));
        const uint64_t all = std::accumulate(counts.begin(), counts.end(), uint64_t(0));
        QVERIFY(r.sinkDatagrams < all);
    }

    void sinkThatSaysNothingLeavesItUnknown() {
        Script script;
        script.sink = true;
        script.answerQueries = false;
        ScriptedUdpPeer peer(script);
        QElapsedTimer clock;
        clock.start();
        const RunResult r = runToEnd(udpStreamSpec(peer.port(), 100, 1, 200ms));
        QVERIFY(!r.sinkReported());
        QCOMPARE(r.sinkReports, 0u);
        QVERIFY(r.datagramsSent > 0);
        QVERIFY(!r.unreachable);
        // The end's queries are asked for a second at most.
        QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    }

    void validation() {
        QVERIFY(validateUdpRrSpec({1, 1}) == std::nullopt);
        QVERIFY(validateUdpRrSpec({0, 1}).has_value());
        QVERIFY(validateUdpRrSpec({65508, 1}).has_value());
        QVERIFY(validateUdpStreamSpec({65507}) == std::nullopt);
        QVERIFY(validateUdpStreamSpec({0}).has_value());
        QVERIFY(UdpRrProtocol({8, 8}).sequenced());
        QVERIFY(!UdpRrProtocol({8, 7}).sequenced());
    }
};

QTEST_GUILESS_MAIN(TestUdpLoad)
#include "tst_udp_load.moc"
