// https against nginx-light with a certificate the test makes: exact counts
// and bytes (the same run over plain http is the truth for the bytes), the
// handshake phase (one sample per connection), session resumption, and the
// failures that must be counted and end promptly: a certificate that does not
// verify, a plain server on an https URL, a server that stalls mid-handshake.
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "local_peers.h"
#include "loopback_http_spec.h"
#include "tsan_fork_options.h"

#include <QElapsedTimer>
#include <QTest>
#include <chrono>
#include <netinet/in.h>
#include <sys/socket.h>
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
        if (withCa)
            spec.tls.caFile = m_https->certificatePath().toStdString();
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
        // nginx answers a plain request on its TLS port with a 400 of its own.
        constexpr uint64_t kRequests = 3;
        LoadSpec spec = httpsSpec(m_https->port(), 1, 1, true, kRequests);
        spec.tls = {};
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, kRequests);
        QCOMPARE(r.non2xx + r.failed, kRequests);
    }

    void stalledHandshakeEndsByConnectTimeout() {
        // A listener that never accepts: the kernel completes the TCP
        // handshake, and the ClientHello is never answered.
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(listener >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(::bind(listener, reinterpret_cast<sockaddr*>(&address), length) == 0);
        QVERIFY(::listen(listener, 16) == 0);
        QVERIFY(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        constexpr uint64_t kRequests = 2;
        LoadSpec spec = httpsSpec(ntohs(address.sin_port), 1, 1, true, kRequests);
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

    void badCaFileRefused() {
        LoadSpec spec = httpsSpec(m_https->port(), 1, 1, true, 1);
        spec.tls.caFile = "/nonexistent/ca.pem";
        const auto problem = validateLoadSpec(spec);
        QVERIFY(problem.has_value());
        QVERIFY2(problem->find("/nonexistent/ca.pem") != std::string::npos, problem->c_str());
    }
};

QTEST_GUILESS_MAIN(TestTlsLoad)
#include "tst_tls_load.moc"
