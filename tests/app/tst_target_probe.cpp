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

private:
    QTcpServer m_server;
    QByteArray m_reply;
    bool m_closeAfterReply;
    QByteArray m_received;
    bool m_answered = false;
};

app::Target httpTarget(const QString& url) {
    app::Target target = app::makeTarget(QStringLiteral("t"), app::DeploymentMode::Host, 0);
    target.http.url = url;
    return target;
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
        auto task = [&]() -> QCoro::Task<> {
            result = co_await probe.probe(target, std::chrono::milliseconds(5000));
        }();
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
        auto task = [&]() -> QCoro::Task<> {
            result = co_await probe.probe(target, std::chrono::milliseconds(300));
        }();
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
        const QString caFile = dir.filePath(QStringLiteral("ca.pem"));
        QFile ca(caFile);
        QVERIFY(ca.open(QIODevice::WriteOnly));
        ca.write(QByteArray::fromStdString(server.certificatePem()));
        ca.close();
        app::Target target = httpTarget(QStringLiteral("https://localhost:%1/").arg(server.port()));
        target.address = QStringLiteral("127.0.0.1:%1").arg(server.port());
        target.http.tlsInsecure = trust == QLatin1String("insecure");
        if (trust == QLatin1String("ca"))
            target.http.tlsCaFile = caFile;
        std::optional<app::ProbeResult> result;
        auto task = [&]() -> QCoro::Task<> {
            result = co_await app::probeTarget(target, std::chrono::milliseconds(5000));
        }();
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
        QCOMPARE(result->ok, error.isEmpty());
        if (error.isEmpty()) {
            QCOMPARE(result->statusCode, 200);
            QCOMPARE(result->documentLength, qint64(4897));
        } else {
            QVERIFY2(result->error.contains(error), qPrintable(result->error));
        }
    }

    void whatTheBuilderRefusesTheProbeRefuses() {
        app::Target target = httpTarget(QStringLiteral("http://127.0.0.1:1/"));
        target.http.headers = {{QStringLiteral("Bad Name"), QStringLiteral("1")}};
        std::optional<app::ProbeResult> result;
        auto task = [&]() -> QCoro::Task<> {
            result = co_await app::probeTarget(target);
        }();
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 5000);
        QVERIFY(!result->ok);
        QVERIFY2(result->error.contains(QStringLiteral("header name 'Bad Name'")),
                 qPrintable(result->error));
    }
};

QTEST_GUILESS_MAIN(TestTargetProbe)
#include "tst_target_probe.moc"
