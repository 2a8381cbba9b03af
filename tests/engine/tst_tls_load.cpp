// https against nginx-light with a certificate the test makes: exact counts
// and bytes (the same run over plain http is the truth for the bytes), the
// handshake phase (one sample per connection), session resumption, and the
// failures that must be counted and end promptly: a certificate that does not
// verify, a plain server on an https URL, a server that stalls mid-handshake,
// and one that closes while the client still writes (no SIGPIPE may end it).
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "handicapped_protocol.h"
#include "local_peers.h"
#include "loopback_http_spec.h"
#include "loopback_listener.h"
#include "tsan_fork_options.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <map>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace loadscope::engine;
using loadscope::testing::NginxPeer;
using loadscope::testing::runToEnd;
using namespace std::chrono_literals;

namespace {

constexpr qsizetype kDocumentBytes = 4897;

LoadSpec httpsSpec(uint16_t port, uint32_t concurrency, uint32_t threads, bool keepAlive,
                   uint64_t requests) {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, concurrency, keepAlive);
    spec.threads = threads;
    spec.requests = requests;
    spec.requestTimeout = 10s;
    spec.tls.enabled = true;
    spec.tls.serverName = "127.0.0.1";
    return spec;
}

// A TLS server that completes each handshake, reads one record of the
// request and closes with the rest unread: the kernel resets the
// connection, and a client still writing gets EPIPE from write(), which
// OpenSSL uses, and SIGPIPE unless the thread keeps it from ending the process.
class ClosingTlsPeer {
public:
    ClosingTlsPeer(const QString& certificate, const QString& key) {
        m_context = SSL_CTX_new(TLS_server_method());
        m_listener = loadscope::testing::listenOnLoopback(0, 16, m_port);
        if (!m_context || m_listener < 0 ||
            SSL_CTX_use_certificate_chain_file(m_context, certificate.toLocal8Bit().data()) != 1 ||
            SSL_CTX_use_PrivateKey_file(m_context, key.toLocal8Bit().data(), SSL_FILETYPE_PEM) != 1)
            return;
        m_thread = std::thread([this] { serve(); });
    }
    ~ClosingTlsPeer() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        if (m_listener >= 0)
            ::close(m_listener);
        SSL_CTX_free(m_context);
    }
    bool isRunning() const { return m_thread.joinable(); }
    uint16_t port() const { return m_port; }
    int closed() const { return m_closed; }

private:
    void serve() {
        while (!m_stop) {
            pollfd ready{m_listener, POLLIN, 0};
            if (::poll(&ready, 1, 50) <= 0)
                continue; // bounded: the destructor's flag is seen within 50 ms
            const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0)
                continue;
            SSL* ssl = SSL_new(m_context);
            SSL_set_fd(ssl, fd);
            timeval bound{2, 0}; // a client that never sends cannot hold the peer
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
            char record[16 * 1024];
            if (SSL_accept(ssl) == 1)
                SSL_read(ssl, record, sizeof record);
            SSL_free(ssl);
            ::close(fd);
            ++m_closed;
        }
    }

    SSL_CTX* m_context = nullptr;
    int m_listener = -1;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_closed{0};
    std::thread m_thread;
};

} // namespace

class TestTlsLoad : public QObject {
    Q_OBJECT

    std::unique_ptr<NginxPeer> m_https;
    std::unique_ptr<NginxPeer> m_http;

private Q_SLOTS:
    void initTestCase() {
        m_https = std::make_unique<NginxPeer>(kDocumentBytes, NginxPeer::Scheme::Https);
        if (!m_https->isRunning())
            QSKIP(qPrintable(m_https->error()));
        m_http = std::make_unique<NginxPeer>(kDocumentBytes);
        QVERIFY2(m_http->isRunning(), qPrintable(m_http->error()));
    }

    void cleanupTestCase() {
        m_https.reset();
        m_http.reset();
    }

    void exactCountsAndBytes_data() {
        QTest::addColumn<bool>("keepAlive");
        QTest::addColumn<int>("version");
        QTest::newRow("keep-alive, TLS 1.3") << true << int(TlsVersion::Tls13);
        QTest::newRow("keep-alive, TLS 1.2") << true << int(TlsVersion::Tls12);
        QTest::newRow("a connection per request, TLS 1.3") << false << int(TlsVersion::Tls13);
        QTest::newRow("a connection per request, TLS 1.2") << false << int(TlsVersion::Tls12);
    }

    void exactCountsAndBytes() {
        QFETCH(bool, keepAlive);
        QFETCH(int, version);
        constexpr uint64_t kRequests = 300;
        constexpr uint32_t kConcurrency = 4;
        LoadSpec spec = httpsSpec(m_https->port(), kConcurrency, 2, keepAlive, kRequests);
        spec.tls.caFile = m_https->certificatePath().toStdString();
        spec.tls.caPem = m_https->certificatePem();
        spec.tls.version = TlsVersion(version);
        const RunResult r = runToEnd(spec);
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.statusCodes.at(200), kRequests);
        QCOMPARE(r.bytesBody, kRequests * uint64_t(kDocumentBytes));

        // The same requests over plain http: nginx sends the same headers on
        // both, so the bytes received must be the same.
        LoadSpec plain = spec;
        plain.target = *SocketAddress::fromNumeric("127.0.0.1", m_http->port());
        plain.tls = {};
        const RunResult p = runToEnd(plain);
        QCOMPARE(p.complete, kRequests);
        QCOMPARE(r.bytesTotal, p.bytesTotal);
        QCOMPARE(r.bytesSent, p.bytesSent);

        // One handshake per connection, each in the TLS histogram.
        const uint64_t connections = keepAlive ? kConcurrency : kRequests;
        QCOMPARE(r.connectionsOpened, connections);
        QCOMPARE(r.tlsHandshakes, connections);
        QCOMPARE(r.tls.count(), connections);
        QVERIFY(r.tls.min() > 0);
        QCOMPARE(QString::fromStdString(r.tlsProtocol), version == int(TlsVersion::Tls13)
                                                            ? QStringLiteral("TLSv1.3")
                                                            : QStringLiteral("TLSv1.2"));
        QVERIFY(!r.tlsCipher.empty());
        // The first request of each connection carries its handshake: total
        // = connect + TLS + processing for it, so processing is below total.
        QVERIFY(r.processing.max() <= r.total.max());
        if (!keepAlive) {
            // Every connection after a worker's first few resumes the session
            // its predecessor received; only those opened before any session
            // had arrived (at most the concurrency) are full.
            QVERIFY2(r.tlsResumed >= connections - kConcurrency,
                     qPrintable(QString::number(r.tlsResumed)));
            QVERIFY(r.tlsResumed < connections);
        }
    }

    void resumptionCountedAndDisabled() {
        // One connection at a time on each of two threads: all but each
        // thread's first handshake resume.
        constexpr uint64_t kRequests = 100;
        LoadSpec spec = httpsSpec(m_https->port(), 2, 2, false, kRequests);
        spec.tls.verify = false;
        const RunResult r = runToEnd(spec);
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.tlsHandshakes, kRequests);
        QCOMPARE(r.tlsResumed, kRequests - 2);

        spec.tls.resume = false;
        const RunResult full = runToEnd(spec);
        QCOMPARE(full.complete, kRequests);
        QCOMPARE(full.tlsHandshakes, kRequests);
        QCOMPARE(full.tlsResumed, 0u);
    }

    // Through TLS too a response's time is when its bytes arrived, not when
    // the loop got to them. Connection 0 holds the loop 50 ms after each of
    // its responses; nginx answers the other three at once, so their
    // responses mostly arrive during the hold and wait in their sockets
    // until it ends. Their latency is a TLS round trip on loopback, a
    // millisecond or less; read at the recv, it would be the rest of the hold.
    void aResponseReadLateKeepsItsArrivalTime() {
        LoadSpec spec = httpsSpec(m_https->port(), 4, 1, true, 0);
        spec.tls.verify = false;
        spec.duration = 1s;
        spec.protocol =
            std::make_shared<loadscope::testing::HandicappedProtocol>(spec.protocol, 50ms);
        const RunResult r = runToEnd(spec);
        QVERIFY2(r.firstError.empty(), r.firstError.c_str());
        QCOMPARE(r.operations.size(), size_t(2));
        const Histogram& others = r.operations[1].latency;
        QVERIFY2(others.count() >= 30, qPrintable(QString::number(others.count())));
        const int64_t p75 = others.valueAtPercentile(75);
        QVERIFY2(p75 <= int64_t(std::chrono::nanoseconds(5ms).count()),
                 qPrintable(QStringLiteral("p75 %1 ms of the other connections (%2 requests)")
                                .arg(double(p75) / 1e6, 0, 'f', 3)
                                .arg(others.count())));
    }

    void verificationFailureCounted_data() {
        QTest::addColumn<bool>("withCa");
        QTest::addColumn<QString>("serverName");
        QTest::addColumn<QString>("reason");
        QTest::newRow("self-signed, system store")
            << false << QStringLiteral("127.0.0.1") << QStringLiteral("self-signed certificate");
        QTest::newRow("wrong host name")
            << true << QStringLiteral("wrong.example") << QStringLiteral("hostname mismatch");
        QTest::newRow("localhost in the SAN") << true << QStringLiteral("localhost") << QString();
    }

    void verificationFailureCounted() {
        QFETCH(bool, withCa);
        QFETCH(QString, serverName);
        QFETCH(QString, reason);
        constexpr uint64_t kRequests = 5;
        LoadSpec spec = httpsSpec(m_https->port(), 1, 1, true, kRequests);
        spec.tls.serverName = serverName.toStdString();
        if (withCa) {
            spec.tls.caFile = m_https->certificatePath().toStdString();
            spec.tls.caPem = m_https->certificatePem();
        }
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        if (reason.isEmpty()) {
            QCOMPARE(r.failed, 0u);
            return;
        }
        QCOMPARE(r.failed, kRequests);
        QCOMPARE(r.errors[size_t(ErrorClass::Tls)], kRequests);
        QCOMPARE(r.tlsHandshakes, 0u);
        QVERIFY2(QString::fromStdString(r.firstError).contains(reason), r.firstError.c_str());
        QVERIFY2(QString::fromStdString(r.firstError).contains(u"verification failed"),
                 r.firstError.c_str());
    }

    void plainServerOnHttpsCounted() {
        constexpr uint64_t kRequests = 3;
        LoadSpec spec = httpsSpec(m_http->port(), 1, 1, true, kRequests);
        spec.tls.verify = false;
        QElapsedTimer timer;
        timer.start();
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.errors[size_t(ErrorClass::Tls)], kRequests);
        QVERIFY2(r.firstError.find("TLS") != std::string::npos, r.firstError.c_str());
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void tlsServerOnHttpEnds() {
        // nginx answers a plain request on its TLS port with a 400 of its own (and closes
        // the connection): its access log says what it sent, and the client's counts are
        // those responses, every request it sent no answer to a failure.
        NginxPeer https(kDocumentBytes, NginxPeer::Scheme::Https, false, true);
        QVERIFY2(https.isRunning(), qPrintable(https.error()));
        constexpr uint64_t kRequests = 3;
        LoadSpec spec = httpsSpec(https.port(), 1, 1, true, kRequests);
        spec.tls = {};
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        // nginx logs a request when it has finished with it, after its answer went out.
        QTRY_COMPARE(https.loggedStatuses().size(), qsizetype(kRequests));
        std::map<int, uint64_t> statuses;
        uint64_t non2xx = 0;
        for (const int status : https.loggedStatuses()) {
            ++statuses[status];
            non2xx += status / 100 != 2;
        }
        QVERIFY(statuses == (std::map<int, uint64_t>{{400, kRequests}}));
        QVERIFY(r.statusCodes == statuses);
        QCOMPARE(r.non2xx, non2xx);
        QCOMPARE(r.failed, kRequests - uint64_t(https.loggedStatuses().size()));
    }

    void stalledHandshakeEndsByConnectTimeout() {
        // A listener that never accepts: the kernel completes the TCP
        // handshake, and the ClientHello is never answered.
        uint16_t port = 0;
        const int listener = loadscope::testing::listenOnLoopback(0, 16, port);
        QVERIFY(listener >= 0);
        constexpr uint64_t kRequests = 2;
        LoadSpec spec = httpsSpec(port, 1, 1, true, kRequests);
        spec.connectTimeout = 300ms;
        spec.tls.verify =
            false; // not what is tested; loading the CA store is slow under a sanitizer
        QElapsedTimer timer;
        timer.start();
        const RunResult r = runToEnd(spec);
        ::close(listener);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.errors[size_t(ErrorClass::Tls)], kRequests);
        QVERIFY2(r.firstError.find("connect timeout") != std::string::npos, r.firstError.c_str());
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void peerGoneMidWriteIsCounted() {
        QTemporaryDir dir;
        const QString made = loadscope::testing::writeSelfSignedCertificate(dir.path());
        QVERIFY2(made.isEmpty(), qPrintable(made));
        ClosingTlsPeer peer(dir.filePath(QStringLiteral("cert.pem")),
                            dir.filePath(QStringLiteral("key.pem")));
        QVERIFY(peer.isRunning());
        HttpRequestSpec request;
        request.method = "POST";
        request.host = "127.0.0.1:" + std::to_string(peer.port());
        request.body.assign(8 << 20, 'b'); // far more than the socket buffers hold
        constexpr uint64_t kRequests = 3;
        LoadSpec spec = httpsSpec(peer.port(), 1, 1, true, kRequests);
        spec.protocol = std::make_shared<HttpProtocol>(request);
        spec.tls.verify = false;
        // Alive to compare: a SIGPIPE would have ended the test process here.
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.failed, kRequests);
        QCOMPARE(r.errors[size_t(ErrorClass::Write)] + r.errors[size_t(ErrorClass::Receive)] +
                     r.errors[size_t(ErrorClass::Tls)],
                 kRequests);
        QVERIFY2(peer.closed() >= int(kRequests), qPrintable(QString::number(peer.closed())));
    }

    void badCaFileRefused() {
        LoadSpec spec = httpsSpec(m_https->port(), 1, 1, true, 1);
        spec.tls.caFile = "/tmp/not-a-ca.pem";
        spec.tls.caPem = "not a certificate\n";
        const auto problem = validateLoadSpec(spec);
        QVERIFY(problem.has_value());
        QVERIFY2(problem->find("/tmp/not-a-ca.pem") != std::string::npos, problem->c_str());
    }
};

QTEST_GUILESS_MAIN(TestTlsLoad)
#include "tst_tls_load.moc"
