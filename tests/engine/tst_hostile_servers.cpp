// The engine against servers that misbehave on purpose (hostile_peer.h):
// each run ends by its own bounds, counts what happened in its class, and
// says why. The truths: the wall clock against the run's bounds, the peer's
// own counts (the bytes it flooded, the connections and streams it saw).
// The suite runs in a network namespace of its own (private_network.h),
// where TCP's default receive buffer is 4 MiB, as on a tuned machine: a
// peer can then keep more queued than one of the client's reads takes.
#include "engine/error_class.h"
#include "engine/http2_protocol.h"
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "fixed_delay_server.h"
#include "hostile_peer.h"
#include "loopback_http_spec.h"
#include "private_network.h"

#include <QTest>
#include <chrono>
#include <thread>

using namespace loadscope::engine;
using loadscope::testing::HostilePeer;
using namespace std::chrono_literals;

namespace {

// The CPU a flooding peer and the client share, so that the peer can keep
// the client's socket full while the client reads.
constexpr int kSharedCpu = 0;

LoadSpec h2cSpec(uint16_t port) {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, 1);
    HttpRequestSpec request;
    request.host = "127.0.0.1:" + std::to_string(port);
    spec.protocol = std::make_shared<Http2Protocol>(request, Http2Settings{});
    return spec;
}

double secondsOf(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// The run's result and how long it took on the wall clock.
std::pair<RunResult, double> timedRun(const LoadSpec& spec,
                                      std::chrono::milliseconds cancelAfter = 0ms) {
    const auto start = std::chrono::steady_clock::now();
    LoadRun run(spec);
    run.start();
    if (cancelAfter > 0ms) {
        std::this_thread::sleep_for(cancelAfter);
        run.cancel();
    }
    RunResult result = run.wait();
    return {std::move(result), secondsOf(std::chrono::steady_clock::now() - start)};
}

uint64_t errorsOf(const RunResult& r, ErrorClass error) {
    return r.errors[size_t(error)];
}

} // namespace

class TestHostileServers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        // Without the namespace (no CAP_SYS_ADMIN) the suite still runs, on
        // the machine's loopback with its buffers: a flood then keeps less
        // queued, and an unbounded read loop may not show.
        if (const auto why = loadscope::testing::enterPrivateNetwork())
            qWarning("running on the machine's loopback: %s", why->c_str());
        else
            QVERIFY(loadscope::testing::setPrivateTcpBuffers("4096 4194304 33554432"));
    }

    void floodsDoNotHoldTheLoop_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("http2");
        QTest::newRow("HTTP/2 WINDOW_UPDATE flood")
            << int(HostilePeer::Mode::H2FloodWindowUpdate) << true;
        QTest::newRow("HTTP/2 unknown frames")
            << int(HostilePeer::Mode::H2FloodUnknownFrames) << true;
        QTest::newRow("HTTP/1 endless body") << int(HostilePeer::Mode::Http1EndlessBody) << false;
    }

    // A peer that keeps the client's socket full on the client's own CPU:
    // the run still ends at its duration, its request timing out on the way.
    void floodsDoNotHoldTheLoop() {
        QFETCH(int, mode);
        QFETCH(bool, http2);
        HostilePeer peer{HostilePeer::Mode(mode), kSharedCpu};
        QVERIFY(peer.isListening());
        LoadSpec spec =
            http2 ? h2cSpec(peer.port()) : loadscope::testing::loopbackHttpSpec(peer.port(), 1);
        spec.cpus = {kSharedCpu};
        spec.duration = 1s;
        spec.requestTimeout = 300ms;
        const auto [r, wall] = timedRun(spec);
        QVERIFY2(wall < 2.0, qPrintable(QString::number(wall)));
        // It did flood: far more than one read of the client's could take.
        QVERIFY2(peer.bytesSent() > 16u << 20, qPrintable(QString::number(peer.bytesSent())));
        QVERIFY2(errorsOf(r, ErrorClass::Timeout) >= 1, r.firstError.c_str());
        QCOMPARE(r.complete - r.failed, 0u);
    }

    // The first cancel ends a flooded run as it ends any other.
    void cancelEndsAFloodedRun() {
        HostilePeer peer(HostilePeer::Mode::H2FloodWindowUpdate, kSharedCpu);
        QVERIFY(peer.isListening());
        LoadSpec spec = h2cSpec(peer.port());
        spec.cpus = {kSharedCpu};
        spec.duration = 30s;
        const auto [r, wall] = timedRun(spec, 300ms);
        QVERIFY2(wall < 1.3, qPrintable(QString::number(wall)));
        QVERIFY(r.cancelled);
        QVERIFY(peer.bytesSent() > 0);
    }

    // SETTINGS_MAX_CONCURRENT_STREAMS 0 after one answer: nothing is in
    // flight, so only the wait for new SETTINGS, bounded by the request
    // timeout, can end it; each such wait counts one GOAWAY-class failure.
    void noStreamsAllowedEndsByTheRequestTimeout() {
        HostilePeer peer(HostilePeer::Mode::H2NoStreams);
        QVERIFY(peer.isListening());
        LoadSpec spec = h2cSpec(peer.port());
        spec.requests = 4;
        spec.requestTimeout = 300ms;
        const auto [r, wall] = timedRun(spec);
        QVERIFY2(wall < 2.0, qPrintable(QString::number(wall)));
        QCOMPARE(r.complete, 4u);
        // Each connection: its first stream answered, then one wait.
        QCOMPARE(peer.connections(), 2u);
        QCOMPARE(peer.streamsSeen(), 2u);
        QCOMPARE(r.statusCodes.at(200), 2u);
        QCOMPARE(errorsOf(r, ErrorClass::Goaway), 2u);
        QCOMPARE(r.failed, 2u);
        QVERIFY2(r.firstError.find("SETTINGS_MAX_CONCURRENT_STREAMS 0") != std::string::npos,
                 r.firstError.c_str());
    }

    // A fixed rate far below the run's one request (-R 0.2 -n 1): the run
    // ends with the answer, not at the schedule's next time 5 s later, and a
    // cancel that comes after (a late Ctrl-C) leaves it complete.
    void aCountedFixedRateRunEndsWithItsLastAnswer() {
        loadscope::testing::FixedDelayServer::Options options;
        options.delay = 1ms;
        loadscope::testing::FixedDelayServer server(options);
        QVERIFY(server.isListening());
        LoadSpec spec = loadscope::testing::loopbackHttpSpec(server.port(), 1);
        spec.rate = 0.2;
        spec.requests = 1;
        const auto [r, wall] = timedRun(spec, 500ms);
        QVERIFY2(wall < 1.0, qPrintable(QString::number(wall)));
        QVERIFY(!r.cancelled);
        QCOMPARE(r.complete, 1u);
        QCOMPARE(r.failed, 0u);
        // Measured to the answer: the server's delay, not a schedule's gap.
        QVERIFY2(r.durationSeconds < 0.5, qPrintable(QString::number(r.durationSeconds)));
    }

    // A rate whose gaps no schedule can count is refused before it runs.
    void aRateBelowTheRangeIsRefused() {
        LoadSpec spec = loadscope::testing::loopbackHttpSpec(9, 1);
        spec.requests = 1;
        for (const double rate : {1e-10, 1e-300, -1.0, 5e8}) {
            spec.rate = rate;
            const auto problem = validateLoadSpec(spec);
            QVERIFY2(problem && problem->find("0.001 to 100000000") != std::string::npos,
                     problem ? problem->c_str() : "accepted");
        }
    }

    void clientResetsAreCountedAtOnce_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("reason");
        QTest::newRow(":status abc") << int(HostilePeer::Mode::H2BadStatus)
                                     << QStringLiteral("name: [:status], value: [abc]");
        QTest::newRow("no :status")
            << int(HostilePeer::Mode::H2NoStatus) << QStringLiteral("the response has no :status");
        QTest::newRow("short body")
            << int(HostilePeer::Mode::H2ShortBody)
            << QStringLiteral("its DATA (5 bytes) does not match its content-length 100");
    }

    // A response the client must reset is counted as its RST_STREAM goes
    // out, with the reason: not after the request timeout, as a timeout.
    void clientResetsAreCountedAtOnce() {
        QFETCH(int, mode);
        QFETCH(QString, reason);
        HostilePeer peer{HostilePeer::Mode(mode)};
        QVERIFY(peer.isListening());
        LoadSpec spec = h2cSpec(peer.port());
        spec.requests = 3;
        spec.requestTimeout = 10s;
        const auto [r, wall] = timedRun(spec);
        QVERIFY2(wall < 2.0, qPrintable(QString::number(wall)));
        QCOMPARE(r.complete, 3u);
        QCOMPARE(r.failed, 3u);
        QCOMPARE(errorsOf(r, ErrorClass::Exception), 3u);
        QCOMPARE(peer.streamsSeen(), 3u);
        QVERIFY2(r.firstError.find("the client reset stream 1") != std::string::npos,
                 r.firstError.c_str());
        QVERIFY2(r.firstError.find(reason.toStdString()) != std::string::npos,
                 r.firstError.c_str());
    }

    void protocolErrorsNameTheirReason_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("reason");
        QTest::newRow("DATA on stream 0")
            << int(HostilePeer::Mode::H2DataOnStreamZero) << QStringLiteral("DATA");
        QTest::newRow("PUSH_PROMISE")
            << int(HostilePeer::Mode::H2PushPromise) << QStringLiteral("PUSH_PROMISE");
        QTest::newRow("oversized frame")
            << int(HostilePeer::Mode::H2OversizedFrame) << QStringLiteral("FRAME_SIZE_ERROR");
        QTest::newRow("bad HPACK")
            << int(HostilePeer::Mode::H2BadHpack) << QStringLiteral("COMPRESSION_ERROR");
    }

    // A connection error is counted, and the First error says what nghttp2
    // found, not only that the session ended.
    void protocolErrorsNameTheirReason() {
        QFETCH(int, mode);
        QFETCH(QString, reason);
        HostilePeer peer{HostilePeer::Mode(mode)};
        QVERIFY(peer.isListening());
        LoadSpec spec = h2cSpec(peer.port());
        spec.requests = 2;
        spec.requestTimeout = 10s;
        const auto [r, wall] = timedRun(spec);
        QVERIFY2(wall < 2.0, qPrintable(QString::number(wall)));
        QCOMPARE(r.complete, 2u);
        QCOMPARE(errorsOf(r, ErrorClass::Exception), 2u);
        QVERIFY2(r.firstError.find("the server broke the protocol") != std::string::npos,
                 r.firstError.c_str());
        QVERIFY2(r.firstError.find(reason.toStdString()) != std::string::npos,
                 r.firstError.c_str());
    }
};

QTEST_GUILESS_MAIN(TestHostileServers)
#include "tst_hostile_servers.moc"
