// HTTP/2 load: h2c by prior knowledge and h2 by ALPN against nginx-light
// (exact request counts, body bytes of a document of known size, status
// codes), each stream's own latency against a server that delays every
// other stream by a known time, and hostile peers (GOAWAY, RST_STREAM,
// garbage, a zero window) that must end as a counted class, never a hang.
#include "engine/http2_protocol.h"
#include "engine/load_run.h"
#include "http2_test_server.h"
#include "local_peers.h"
#include "loopback_http_spec.h"
#include "tsan_fork_options.h"

#include <QElapsedTimer>
#include <QTest>
#include <chrono>

using namespace loadscope::engine;
using loadscope::testing::Http2TestServer;
using loadscope::testing::NginxPeer;
using loadscope::testing::runToEnd;
using namespace std::chrono_literals;

namespace {

constexpr qsizetype kDocumentBytes = 4897;
constexpr int64_t kMs = 1'000'000;

LoadSpec h2Spec(uint16_t port, uint32_t connections, uint32_t streams, uint64_t requests,
                bool tls = false, const std::string& path = "/") {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, connections);
    HttpRequestSpec request;
    request.host = "127.0.0.1:" + std::to_string(port);
    request.pathAndQuery = path;
    Http2Settings settings;
    settings.tls = tls;
    spec.protocol = std::make_shared<Http2Protocol>(request, settings);
    spec.pipeline = streams;
    spec.requests = requests;
    spec.requestTimeout = 10s;
    if (tls) {
        spec.tls.enabled = true;
        spec.tls.serverName = "127.0.0.1";
        spec.tls.alpn = kAlpnHttp2;
    }
    return spec;
}

} // namespace

class TestHttp2Load : public QObject {
    Q_OBJECT

    std::unique_ptr<NginxPeer> m_h2c;
    std::unique_ptr<NginxPeer> m_h2;
    std::unique_ptr<NginxPeer> m_http1Tls;

private Q_SLOTS:
    void initTestCase() {
        m_h2c = std::make_unique<NginxPeer>(kDocumentBytes, NginxPeer::Scheme::Http, true);
        if (!m_h2c->isRunning())
            QSKIP(qPrintable(m_h2c->error()));
        m_h2 = std::make_unique<NginxPeer>(kDocumentBytes, NginxPeer::Scheme::Https, true);
        QVERIFY2(m_h2->isRunning(), qPrintable(m_h2->error()));
        m_http1Tls = std::make_unique<NginxPeer>(kDocumentBytes, NginxPeer::Scheme::Https);
        QVERIFY2(m_http1Tls->isRunning(), qPrintable(m_http1Tls->error()));
    }

    void cleanupTestCase() {
        m_h2c.reset();
        m_h2.reset();
        m_http1Tls.reset();
    }

    void exactCountsAndBytes_data() {
        QTest::addColumn<bool>("tls");
        QTest::addColumn<uint>("connections");
        QTest::addColumn<uint>("streams");
        QTest::addColumn<uint>("threads");
        QTest::newRow("h2c, 1 x 1") << false << 1u << 1u << 1u;
        QTest::newRow("h2c, 2 x 10") << false << 2u << 10u << 1u;
        QTest::newRow("h2c, 4 x 8 on 2 threads") << false << 4u << 8u << 2u;
        QTest::newRow("h2 over TLS, 1 x 1") << true << 1u << 1u << 1u;
        QTest::newRow("h2 over TLS, 2 x 10") << true << 2u << 10u << 1u;
    }

    void exactCountsAndBytes() {
        QFETCH(bool, tls);
        QFETCH(uint, connections);
        QFETCH(uint, streams);
        QFETCH(uint, threads);
        constexpr uint64_t kRequests = 400;
        const NginxPeer& peer = tls ? *m_h2 : *m_h2c;
        LoadSpec spec = h2Spec(peer.port(), connections, streams, kRequests, tls);
        spec.threads = threads;
        if (tls) {
            spec.tls.caFile = peer.certificatePath().toStdString();
            spec.tls.caPem = peer.certificatePem();
        }
        const RunResult r = runToEnd(spec);
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.statusCodes.at(200), kRequests);
        QCOMPARE(r.bytesBody, kRequests * uint64_t(kDocumentBytes));
        // Every DATA and HEADERS frame of a stream counts, with its 9-byte header.
        QVERIFY(r.bytesTotal > r.bytesBody + kRequests * 2 * 9);
        QCOMPARE(r.connectionsOpened, uint64_t(connections));
        QVERIFY2(r.serverSoftware.find("nginx") == 0, r.serverSoftware.c_str());
        if (tls)
            QCOMPARE(r.tlsHandshakes, uint64_t(connections));
    }

    void statusCodesPerStream() {
        constexpr uint64_t kRequests = 60;
        const RunResult r = runToEnd(h2Spec(m_h2c->port(), 2, 5, kRequests, false, "/missing"));
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.statusCodes.at(404), kRequests);
        QCOMPARE(r.non2xx, kRequests);
    }

    void alpnRefusalCounted() {
        // nginx without http2 on its TLS port: h2 is never agreed.
        constexpr uint64_t kRequests = 3;
        LoadSpec spec = h2Spec(m_http1Tls->port(), 1, 4, kRequests, true);
        spec.tls.verify = false;
        QElapsedTimer timer;
        timer.start();
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.errors[size_t(ErrorClass::Tls)], kRequests);
        const QString first = QString::fromStdString(r.firstError);
        QVERIFY2(first.contains(u"ALPN") || first.contains(u"application protocol"),
                 r.firstError.c_str());
        QVERIFY2(!first.contains(u'\n'), r.firstError.c_str());
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void eachStreamHasItsOwnLatency() {
        // Streams 1, 5, 9, ... are answered after 200 ms, 3, 7, 11, ... at
        // once: on one connection with two streams the quick ones end while
        // a slow one is still open, and each must be timed by itself.
        constexpr uint64_t kRequests = 20;
        constexpr size_t kBody = 1000;
        Http2TestServer server(Http2TestServer::Mode::Answer, kBody, 200ms);
        QVERIFY(server.isRunning());
        const RunResult r = runToEnd(h2Spec(server.port(), 1, 2, kRequests));
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.bytesBody, kRequests * kBody);
        QCOMPARE(r.total.count(), kRequests);
        // Far below the slow ones' 200 ms, with room for a loaded machine.
        QVERIFY2(r.total.valueAtPercentile(45) < 150 * kMs,
                 qPrintable(QString::number(r.total.valueAtPercentile(45))));
        QVERIFY2(r.total.valueAtPercentile(55) >= 200 * kMs,
                 qPrintable(QString::number(r.total.valueAtPercentile(55))));
        QVERIFY2(r.total.max() < 1000 * kMs, qPrintable(QString::number(r.total.max())));
        QVERIFY2(r.serverSoftware == "h2-test", r.serverSoftware.c_str());
    }

    void theServersStreamLimitWins() {
        // Ten streams asked for, two allowed by the server's SETTINGS, every
        // answer 150 ms after its request: a stream is opened only when the
        // server allows it, so each waits for its own answer alone (never in
        // a queue of the client's), and none is refused.
        constexpr uint64_t kRequests = 10;
        constexpr int64_t kDelayNs = 150 * kMs;
        Http2TestServer server(Http2TestServer::Mode::AnswerSlow, 100, 150ms, 2);
        QVERIFY(server.isRunning());
        const RunResult r = runToEnd(h2Spec(server.port(), 1, 10, kRequests));
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QVERIFY2(r.total.min() >= kDelayNs, qPrintable(QString::number(r.total.min())));
        // A stream queued behind two others would have waited 300 ms or more.
        QVERIFY2(r.total.max() < 2 * kDelayNs, qPrintable(QString::number(r.total.max())));
    }

    void hostilePeerCounted_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("errorClass");
        QTest::newRow("GOAWAY") << int(Http2TestServer::Mode::Goaway) << int(ErrorClass::Goaway);
        QTest::newRow("RST_STREAM")
            << int(Http2TestServer::Mode::RstStream) << int(ErrorClass::RstStream);
        QTest::newRow("garbage after the preface")
            << int(Http2TestServer::Mode::Garbage) << int(ErrorClass::Exception);
    }

    void hostilePeerCounted() {
        QFETCH(int, mode);
        QFETCH(int, errorClass);
        constexpr uint64_t kRequests = 6;
        Http2TestServer server(Http2TestServer::Mode(mode), 100);
        QVERIFY(server.isRunning());
        LoadSpec spec = h2Spec(server.port(), 1, 3, kRequests);
        spec.requestTimeout = 5s;
        QElapsedTimer timer;
        timer.start();
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, kRequests);
        QCOMPARE(r.errors[size_t(errorClass)], kRequests);
        QVERIFY2(!r.firstError.empty() && r.firstError.find('\n') == std::string::npos,
                 r.firstError.c_str());
        // Well inside the request timeout: each failure is seen, not waited out.
        QVERIFY2(timer.elapsed() < 4000, qPrintable(QString::number(timer.elapsed())));
    }

    void gracefulGoawayIsSentAgain() {
        // Two answers per connection, then GOAWAY(NO_ERROR) refusing the
        // rest: the refused streams were never processed, so they go out
        // again on a new connection and nothing fails.
        constexpr uint64_t kRequests = 12;
        Http2TestServer server(Http2TestServer::Mode::GoawayAfterTwo, 100);
        QVERIFY(server.isRunning());
        const RunResult r = runToEnd(h2Spec(server.port(), 1, 3, kRequests));
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.statusCodes.at(200), kRequests);
        QCOMPARE(r.bytesBody, kRequests * 100);
        QCOMPARE(server.connectionsAccepted(), kRequests / 2);
    }

    void zeroWindowEndsByTheTimeout() {
        // A server whose SETTINGS allow no request body: the bodies that were
        // not already on their way wait for a WINDOW_UPDATE that never comes.
        constexpr uint64_t kRequests = 4;
        Http2TestServer server(Http2TestServer::Mode::ZeroWindow, 100);
        QVERIFY(server.isRunning());
        HttpRequestSpec request;
        request.method = "POST";
        request.host = "127.0.0.1";
        request.body = std::string(100, 'b');
        LoadSpec spec = h2Spec(server.port(), 1, 2, kRequests);
        spec.protocol = std::make_shared<Http2Protocol>(request, Http2Settings{});
        spec.requestTimeout = 300ms;
        QElapsedTimer timer;
        timer.start();
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QVERIFY2(r.errors[size_t(ErrorClass::Timeout)] >= 1,
                 qPrintable(QString::number(r.errors[size_t(ErrorClass::Timeout)])));
        QCOMPARE(r.failed, r.errors[size_t(ErrorClass::Timeout)]);
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
    }
};

QTEST_GUILESS_MAIN(TestHttp2Load)
#include "tst_http2_load.moc"
