// The client's TLS reads over the socket BIO (engine/tls_socket_bio.h)
// against a server whose records the test writes to a loopback TCP socket
// itself, in whatever pieces it chooses: the bytes read back must be exactly
// the bytes the server's SSL_write took, whether the records arrive one byte
// at a time, a record header alone, several records in one go or a record
// cut at any point; a read that found the socket dry asks the kernel again
// only after expectInput (the kernel still holds the bytes: FIONREAD); and an
// end of stream or a reset that follows bytes comes after those bytes.
#include "engine/tls_context.h"
#include "engine/tls_session.h"
#include "local_peers.h"
#include "loopback_listener.h"

#include <QTemporaryDir>
#include <QTest>
#include <cerrno>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace loadscope::engine;

namespace {

// What a server wrote, byte i: a pattern with no period a record could hide.
std::string pattern(size_t size, size_t offset) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i)
        bytes[i] = char(((offset + i) * 131 + (offset + i) / 251) % 256);
    return bytes;
}

size_t queuedBytes(int fd) {
    int queued = 0;
    return ::ioctl(fd, FIONREAD, &queued) == 0 ? size_t(queued) : 0;
}

// Waits (at most 2 s) until `fd` has bytes to read or an error.
bool waitReadable(int fd) {
    pollfd ready{fd, POLLIN, 0};
    return ::poll(&ready, 1, 2000) > 0;
}

// One client connection (TlsContext's, over the socket BIO) and a server
// SSL in memory whose output the test sends on the accepted socket.
class Pair {
public:
    Pair(SSL_CTX* serverContext, TlsContext& client) {
        uint16_t port = 0;
        m_listener = loadscope::testing::listenOnLoopback(0, 4, port);
        m_clientFd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(port);
        ::connect(m_clientFd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        pollfd ready{m_listener, POLLIN, 0};
        if (::poll(&ready, 1, 2000) > 0)
            m_serverFd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
        const int one = 1; // each piece its own segment, at once
        ::setsockopt(m_serverFd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (SSL* ssl = client.newConnection(m_clientFd, false))
            m_client = std::make_unique<TlsSession>(ssl);
        m_server = SSL_new(serverContext);
        SSL_set_bio(m_server, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
        SSL_set_accept_state(m_server);
    }
    ~Pair() {
        m_client.reset();
        SSL_free(m_server);
        for (int fd : {m_clientFd, m_serverFd, m_listener})
            if (fd >= 0)
                ::close(fd);
    }

    bool usable() const { return m_serverFd >= 0 && m_client; }
    TlsSession& client() { return *m_client; }
    int clientFd() const { return m_clientFd; }

    // Both sides to the end of the handshake, each flight in one send.
    bool handshake() {
        bool clientDone = false;
        for (int step = 0; step < 20; ++step) {
            m_client->expectInput(false);
            clientDone = clientDone || m_client->handshake() == TlsSession::Step::Done;
            char bytes[16384];
            const ssize_t n = ::recv(m_serverFd, bytes, sizeof bytes, MSG_DONTWAIT);
            if (n > 0)
                BIO_write(SSL_get_rbio(m_server), bytes, int(n));
            const bool serverDone = SSL_do_handshake(m_server) == 1;
            deliver(takeCiphertext(), 0);
            if (clientDone && serverDone)
                return true;
            waitReadable(m_clientFd);
        }
        return false;
    }

    // The records of SSL_write(bytes), in the server's sizes.
    void write(const std::string& bytes, size_t recordBytes) {
        for (size_t at = 0; at < bytes.size(); at += recordBytes)
            SSL_write(m_server, bytes.data() + at, int(std::min(recordBytes, bytes.size() - at)));
    }
    std::string takeCiphertext() {
        std::string out;
        char bytes[16384];
        int n = 0;
        while ((n = BIO_read(SSL_get_wbio(m_server), bytes, sizeof bytes)) > 0)
            out.append(bytes, size_t(n));
        return out;
    }
    void closeNotify() { SSL_shutdown(m_server); }

    // `ciphertext` on the socket, `piece` bytes per send (0: in one);
    // after each the client reads until it wants the socket, into `read`.
    void deliver(const std::string& ciphertext, size_t piece, std::string* read = nullptr) {
        size_t at = 0;
        while (at < ciphertext.size()) {
            const size_t n =
                piece == 0 ? ciphertext.size() : std::min(piece, ciphertext.size() - at);
            at += size_t(::send(m_serverFd, ciphertext.data() + at, n, MSG_NOSIGNAL));
            if (read) {
                waitReadable(m_clientFd);
                m_client->expectInput(false);
                readUntilAgain(*read);
            }
        }
    }
    // The client's reads until one returns -1 (EAGAIN or an error, left in
    // errno) or 0 (then returns 0); returns the last result.
    ssize_t readUntilAgain(std::string& read) {
        char buffer[4096]; // smaller than a record: reads that fill it
        for (;;) {
            const ssize_t n = m_client->readReady(buffer, sizeof buffer);
            if (n <= 0)
                return n;
            read.append(buffer, size_t(n));
        }
    }
    void closeServer(bool reset) {
        if (reset) {
            linger abort{1, 0};
            ::setsockopt(m_serverFd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
            ::close(m_serverFd);
            m_serverFd = -1;
        } else {
            ::shutdown(m_serverFd, SHUT_WR);
        }
    }

private:
    int m_listener = -1;
    int m_clientFd = -1;
    int m_serverFd = -1;
    std::unique_ptr<TlsSession> m_client;
    SSL* m_server = nullptr;
};

} // namespace

class TestTlsSocketBio : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SSL_CTX* m_serverContext = nullptr;
    std::unique_ptr<TlsContext> m_client;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString problem = loadscope::testing::writeSelfSignedCertificate(m_dir.path());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        m_serverContext = SSL_CTX_new(TLS_server_method());
        QVERIFY(m_serverContext);
        QCOMPARE(
            SSL_CTX_use_certificate_chain_file(
                m_serverContext, (m_dir.path() + QStringLiteral("/cert.pem")).toLocal8Bit().data()),
            1);
        QCOMPARE(SSL_CTX_use_PrivateKey_file(
                     m_serverContext,
                     (m_dir.path() + QStringLiteral("/key.pem")).toLocal8Bit().data(),
                     SSL_FILETYPE_PEM),
                 1);
        TlsSpec spec;
        spec.enabled = true;
        spec.serverName = "127.0.0.1";
        spec.verify = false;
        spec.resume = false;
        std::string error;
        m_client = TlsContext::create(spec, &error);
        QVERIFY2(m_client, error.c_str());
    }
    void cleanupTestCase() {
        m_client.reset();
        SSL_CTX_free(m_serverContext);
    }

    void exactBytesInAnyPieces_data() {
        QTest::addColumn<int>("recordBytes"); // the server's SSL_write sizes
        QTest::addColumn<int>("piece");       // bytes per send of its ciphertext; 0: all at once
        QTest::newRow("small records, all at once") << 100 << 0;
        QTest::newRow("small records, a byte at a time") << 100 << 1;
        QTest::newRow("small records, record headers cut") << 100 << 3;
        QTest::newRow("full records, all at once") << 16384 << 0;
        QTest::newRow("full records, cut inside") << 16384 << 7001;
        QTest::newRow("odd records, a header and a bit") << 4897 << 5;
        QTest::newRow("odd records, pieces across two") << 4897 << 9000;
    }
    void exactBytesInAnyPieces() {
        QFETCH(int, recordBytes);
        QFETCH(int, piece);
        Pair pair(m_serverContext, *m_client);
        QVERIFY(pair.usable());
        QVERIFY(pair.handshake());
        const std::string written = pattern(70'000, 0);
        pair.write(written, size_t(recordBytes));
        std::string read;
        pair.deliver(pair.takeCiphertext(), size_t(piece), &read);
        const int error = errno;
        QCOMPARE(read.size(), written.size());
        QVERIFY(read == written);
        QCOMPARE(error, EAGAIN);
    }

    void dryUntilExpected() {
        Pair pair(m_serverContext, *m_client);
        QVERIFY(pair.usable());
        QVERIFY(pair.handshake());
        std::string read;
        pair.write(pattern(1000, 0), 1000);
        pair.deliver(pair.takeCiphertext(), 0, &read);
        QCOMPARE(read.size(), size_t(1000));
        // A read found the socket dry; bytes that come later wait for the
        // readiness event (expectInput), and the kernel still holds them.
        pair.write(pattern(500, 1000), 500);
        const std::string record = pair.takeCiphertext();
        pair.deliver(record, 0);
        QVERIFY(waitReadable(pair.clientFd()));
        char buffer[4096];
        QCOMPARE(pair.client().readReady(buffer, sizeof buffer), ssize_t(-1));
        QCOMPARE(errno, EAGAIN);
        QCOMPARE(queuedBytes(pair.clientFd()), record.size());
        pair.client().expectInput(false);
        QCOMPARE(pair.readUntilAgain(read), ssize_t(-1));
        QCOMPARE(errno, EAGAIN);
        QVERIFY(read == pattern(1500, 0));
        QCOMPARE(queuedBytes(pair.clientFd()), size_t(0));
    }

    void endAfterBytes_data() {
        QTest::addColumn<bool>("closeNotify");
        QTest::addColumn<bool>("reset");
        QTest::newRow("close_notify then FIN") << true << false;
        QTest::newRow("FIN alone") << false << false;
        QTest::newRow("reset") << false << true;
    }
    void endAfterBytes() {
        QFETCH(bool, closeNotify);
        QFETCH(bool, reset);
        Pair pair(m_serverContext, *m_client);
        QVERIFY(pair.usable());
        QVERIFY(pair.handshake());
        std::string read;
        const std::string written = pattern(6000, 0);
        pair.write(written, 4000);
        if (closeNotify)
            pair.closeNotify();
        pair.deliver(pair.takeCiphertext(), 0);
        pair.closeServer(reset);
        QVERIFY(waitReadable(pair.clientFd()));
        // One readiness event with the close: every byte, then the end.
        pair.client().expectInput(true);
        const ssize_t last = pair.readUntilAgain(read);
        const int error = errno;
        QVERIFY(read == written);
        if (reset) {
            QCOMPARE(last, ssize_t(-1));
            QCOMPARE(error, ECONNRESET);
        } else {
            QCOMPARE(last, ssize_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestTlsSocketBio)
#include "tst_tls_socket_bio.moc"
