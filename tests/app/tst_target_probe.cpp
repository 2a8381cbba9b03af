// The probe sends the very request a measured run sends, and reads the
// answer as the engine does: against a scripted peer on this thread's event
// loop that records what it receives and answers with canned bytes.
#include "app/servers/http_server.h"
#include "app/sweep/target_probe.h"

#include <QCoroTask>
#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

// Accepts one connection at a time, keeps every byte received and, once a
// request's head is complete, writes `reply` (and closes when asked to).
class ScriptedPeer : public QObject {
    Q_OBJECT

public:
    ScriptedPeer(QByteArray reply, bool closeAfterReply)
        : m_reply(std::move(reply))
        , m_closeAfterReply(closeAfterReply) {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++m_accepted;
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    m_received += socket->readAll();
                    if (!m_received.contains("\r\n\r\n") || m_answered)
                        return;
                    m_answered = true;
                    socket->write(m_reply);
                    if (m_closeAfterReply)
                        socket->disconnectFromHost();
                });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    QByteArray received() const { return m_received; }
    int accepted() const { return m_accepted; }

private:
    QTcpServer m_server;
    QByteArray m_reply;
    bool m_closeAfterReply;
    QByteArray m_received;
    bool m_answered = false;
    int m_accepted = 0;
};

app::Target httpTarget(const QString& url) {
    app::Target target = app::makeTarget(QStringLiteral("t"), app::DeploymentMode::Host, 0);
    target.http.url = url;
    return target;
}

// A target of `server`: https://localhost (connecting to 127.0.0.1) trusted by `trust`
// ("none": the system store; "insecure"; "ca": the server's certificate written into `dir` as
// the CA file), or http://127.0.0.1 when !tls.
app::Target serverTarget(const app::HttpServer& server, bool tls, const QString& trust,
                         const QTemporaryDir& dir) {
    app::Target target = httpTarget(QStringLiteral("%1://%2:%3/")
                                        .arg(QLatin1String(tls ? "https" : "http"),
                                             QLatin1String(tls ? "localhost" : "127.0.0.1"))
                                        .arg(server.port()));
    target.address = QStringLiteral("127.0.0.1:%1").arg(server.port());
    target.http.tlsInsecure = tls && trust == QLatin1String("insecure");
    if (tls && trust == QLatin1String("ca")) {
        target.http.tlsCaFile = dir.filePath(QStringLiteral("ca.pem"));
        QFile ca(target.http.tlsCaFile);
        if (ca.open(QIODevice::WriteOnly))
            ca.write(QByteArray::fromStdString(server.certificatePem()));
    }
    return target;
}

// The same as an HTTP/2 target of 4 streams per connection.
app::Target http2Target(const app::HttpServer& server, bool tls, const QString& trust,
                        const QTemporaryDir& dir) {
    app::Target target = serverTarget(server, tls, trust, dir);
    target.http.http2 = true;
    target.http.maxConcurrentStreams = 4;
    return target;
}

// A coroutine of its own, not a lambda: its parameters live in its frame, where a lambda's
// captures would die with the lambda at the first suspension.
QCoro::Task<> probeInto(app::Target target, std::chrono::milliseconds timeout,
                        std::optional<app::ProbeResult>* result) {
    *result = co_await app::probeTarget(std::move(target), timeout);
}

// The same through a TargetProbe the test keeps, to read what it sent afterwards.
QCoro::Task<> probeInto(app::TargetProbe* probe, app::Target target,
                        std::chrono::milliseconds timeout,
                        std::optional<app::ProbeResult>* result) {
    *result = co_await probe->probe(std::move(target), timeout);
}

// The verdict of one probe of `target` on this thread's event loop, waited for 10 s at most
// (every probe here has a shorter timeout); nullopt when none came.
std::optional<app::ProbeResult> probeResult(const app::Target& target,
                                            std::chrono::milliseconds timeout) {
    std::optional<app::ProbeResult> result;
    auto task = probeInto(target, timeout, &result);
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 10000))
        qWarning("the probe gave no verdict within 10 s");
    return result;
}

} // namespace

class TestTargetProbe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sendsTheEnginesRequestAndReadsTheAnswer_data() {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<bool>("close");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("status");
        QTest::addColumn<qint64>("length");
        QTest::addColumn<QString>("summary");
        QTest::newRow("200") << QByteArray("HTTP/1.1 200 OK\r\nServer: canned/1.0\r\n"
                                           "Content-Length: 5\r\n\r\nhello")
                             << false << true << 200 << qint64(5)
                             << QStringLiteral("canned/1.0, HTTP 200, 5 bytes");
        QTest::newRow("404") << QByteArray("HTTP/1.1 404 Not Found\r\nServer: canned/1.0\r\n"
                                           "Content-Length: 3\r\n\r\nno!")
                             << false << false << 404 << qint64(3)
                             << QStringLiteral("HTTP 404 Not Found for http://example.test/a");
        QTest::newRow("body to the close")
            << QByteArray("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n0123456789") << true << true
            << 200 << qint64(10) << QStringLiteral("HTTP 200, 10 bytes");
        QTest::newRow("closed without a response")
            << QByteArray() << true << false << 0 << qint64(-1)
            << QStringLiteral("closed the connection without a response");
        QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n") << true << false << 0
                                  << qint64(-1) << QStringLiteral("malformed response");
    }
    void sendsTheEnginesRequestAndReadsTheAnswer() {
        QFETCH(QByteArray, reply);
        QFETCH(bool, close);
        QFETCH(bool, ok);
        QFETCH(int, status);
        QFETCH(qint64, length);
        QFETCH(QString, summary);
        ScriptedPeer peer(reply, close);
        QVERIFY(peer.port() != 0);
        // The URL gives Host and path; the address is where the connection goes.
        app::Target target = httpTarget(QStringLiteral("http://example.test/a"));
        target.address = QStringLiteral("127.0.0.1:%1").arg(peer.port());
        target.http.keepAlive = false;
        target.http.headers = {{QStringLiteral("X-Trace"), QStringLiteral("7")}};

        app::TargetProbe probe;
        std::optional<app::ProbeResult> result;
        auto task = probeInto(&probe, target, std::chrono::milliseconds(5000), &result);
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        QCOMPARE(result->ok, ok);
        QCOMPARE(result->statusCode, status);
        QCOMPARE(result->documentLength, length);
        QVERIFY2(result->summary().contains(summary), qPrintable(result->summary()));

        // Exactly ab's request for these options, as the engine writes it.
        const QByteArray expected = "GET /a HTTP/1.1\r\nHost: example.test\r\n"
                                    "User-Agent: Loadscope\r\nAccept: */*\r\n"
                                    "Connection: close\r\nX-Trace: 7\r\n\r\n";
        QCOMPARE(probe.sentRequest(), expected);
        QCOMPARE(peer.received(), expected);
    }

    void aPeerThatNeverAnswersTimesOut() {
        ScriptedPeer peer(QByteArray(), false);
        app::Target target = httpTarget(QStringLiteral("http://127.0.0.1:%1/").arg(peer.port()));
        app::TargetProbe probe;
        std::optional<app::ProbeResult> result;
        auto task = probeInto(&probe, target, std::chrono::milliseconds(300), &result);
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 5000);
        QVERIFY(!result->ok);
        QVERIFY2(result->error.contains(QStringLiteral("no response from 127.0.0.1:")),
                 qPrintable(result->error));
    }

    // An https target: the probe verifies the certificate as the engine
    // would, so a self-signed one is named before a sweep, not after it.
    void httpsProbeVerifiesAsTheEngine_data() {
        QTest::addColumn<QString>("trust"); // "none", "insecure", "ca"
        QTest::addColumn<QString>("error"); // empty: ok
        QTest::newRow("system store")
            << QStringLiteral("none") << QStringLiteral("TLS certificate verification failed");
        QTest::newRow("insecure") << QStringLiteral("insecure") << QString();
        QTest::newRow("CA file") << QStringLiteral("ca") << QString();
    }
    void httpsProbeVerifiesAsTheEngine() {
        QFETCH(QString, trust);
        QFETCH(QString, error);
        app::HttpServerConfig config;
        config.tls = true;
        app::HttpServer server(config);
        QVERIFY(server.start().ok());
        QTemporaryDir dir;
        const auto result = probeResult(serverTarget(server, true, trust, dir), 5000ms);
        QVERIFY(result);
        QCOMPARE(result->ok, error.isEmpty());
        if (error.isEmpty()) {
            QCOMPARE(result->statusCode, 200);
            QCOMPARE(result->documentLength, qint64(4897));
        } else {
            QVERIFY2(result->error.contains(error), qPrintable(result->error));
        }
    }

    // An HTTP/2 target against the embedded server (`serve http --h2`): h2c by prior knowledge
    // on http://, h2 by ALPN on https:// trusted by --insecure or by its certificate as the CA
    // file. The verdict names the HTTP the answer came in, and the document is the server's.
    void http2ProbeSpeaksHttp2_data() {
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("trust"); // "insecure", "ca"
        QTest::addColumn<QString>("version");
        QTest::newRow("h2c prior knowledge") << false << QString() << QStringLiteral("h2c");
        QTest::newRow("h2 ALPN, insecure")
            << true << QStringLiteral("insecure") << QStringLiteral("h2");
        QTest::newRow("h2 ALPN, CA file") << true << QStringLiteral("ca") << QStringLiteral("h2");
    }
    void http2ProbeSpeaksHttp2() {
        QFETCH(bool, tls);
        QFETCH(QString, trust);
        QFETCH(QString, version);
        app::HttpServerConfig config;
        config.tls = tls;
        config.http2 = true;
        config.documentSize = 1234;
        app::HttpServer server(config);
        QVERIFY(server.start().ok());
        QTemporaryDir dir;
        const auto result = probeResult(http2Target(server, tls, trust, dir), 5000ms);
        server.stop();
        QVERIFY(result);
        QVERIFY2(result->ok, qPrintable(result->error));
        QCOMPARE(result->statusCode, 200);
        QCOMPARE(result->documentLength, qint64(1234));
        QCOMPARE(result->httpVersion, version);
        QVERIFY2(result->summary().contains(
                     QStringLiteral("HTTP 200, over %1, 1234 bytes").arg(version)),
                 qPrintable(result->summary()));
    }

    // The same HTTP/2 target against a server without --h2: one line naming what went wrong,
    // well inside the probe's timeout (no waiting for a reply that never comes in HTTP/2).
    void http2ProbeOfAnHttp1ServerFailsInOneLine_data() {
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("error");
        QTest::newRow("h2c") << false << QStringLiteral("answered in HTTP/1, not HTTP/2");
        QTest::newRow("h2 ALPN") << true
                                 << QStringLiteral("refused HTTP/2 by ALPN (offered h2, it chose");
    }
    void http2ProbeOfAnHttp1ServerFailsInOneLine() {
        QFETCH(bool, tls);
        QFETCH(QString, error);
        app::HttpServerConfig config;
        config.tls = tls;
        app::HttpServer server(config);
        QVERIFY(server.start().ok());
        QTemporaryDir dir;
        // A 30 s timeout waited for 10 s: a hang fails here, it does not pass late.
        const auto result =
            probeResult(http2Target(server, tls, QStringLiteral("insecure"), dir), 30000ms);
        const quint16 port = server.port();
        server.stop();
        QVERIFY(result);
        QVERIFY(!result->ok);
        QVERIFY2(result->error.contains(error), qPrintable(result->error));
        QVERIFY2(!result->error.contains(QLatin1Char('\n')), qPrintable(result->error));
        QVERIFY2(result->error.startsWith(QStringLiteral("127.0.0.1:%1 ").arg(port)),
                 qPrintable(result->error));
    }

    // The HTTP/1 probe of an h2-capable TLS server still speaks HTTP/1.1 (ALPN offers nothing).
    void http1ProbeOfAnHttp2ServerStaysHttp1() {
        app::HttpServerConfig config;
        config.tls = true;
        config.http2 = true;
        app::HttpServer server(config);
        QVERIFY(server.start().ok());
        QTemporaryDir dir;
        const auto result =
            probeResult(serverTarget(server, true, QStringLiteral("insecure"), dir), 5000ms);
        server.stop();
        QVERIFY(result);
        QVERIFY2(result->ok, qPrintable(result->error));
        QCOMPARE(result->httpVersion, QStringLiteral("HTTP/1.1"));
        QVERIFY2(!result->summary().contains(QStringLiteral("over h2")),
                 qPrintable(result->summary()));
    }

    // A lab target's address means something only inside its lab: the probe refuses it
    // with one line before any socket, whatever address it holds. The same target
    // without its lab placement reaches the peer, so the peer would have seen a probe.
    void aLabTargetIsRefusedBeforeAnySocket() {
        ScriptedPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true);
        app::Target target = httpTarget(QStringLiteral("http://127.0.0.1:%1/").arg(peer.port()));
        target.name = QStringLiteral("host");
        target.lab = app::LabPlacement{QStringLiteral("host"), QStringLiteral("http"), {}};
        const auto refused = probeResult(target, 2s);
        QVERIFY(refused);
        QVERIFY(!refused->ok);
        QCOMPARE(refused->error,
                 QStringLiteral("lab target 'host' is reached inside its lab: run the sweep"));
        QTest::qWait(200); // a connection made would be pending by now
        QCOMPARE(peer.accepted(), 0);

        target.lab.reset();
        const auto reached = probeResult(target, 2s);
        QVERIFY(reached);
        QVERIFY2(reached->ok, qPrintable(reached->error));
        QCOMPARE(peer.accepted(), 1);
    }

    void whatTheBuilderRefusesTheProbeRefuses() {
        app::Target target = httpTarget(QStringLiteral("http://127.0.0.1:1/"));
        target.http.headers = {{QStringLiteral("Bad Name"), QStringLiteral("1")}};
        const auto result = probeResult(target, app::kDefaultProbeTimeout);
        QVERIFY(result);
        QVERIFY(!result->ok);
        QVERIFY2(result->error.contains(QStringLiteral("header name 'Bad Name'")),
                 qPrintable(result->error));
    }
};

QTEST_GUILESS_MAIN(TestTargetProbe)
#include "tst_target_probe.moc"
