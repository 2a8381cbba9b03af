// The embedded HTTP server speaking HTTP/2 (`loadscope-cli serve http --h2`): driven by h2load
// and curl, independent clients that count what they received, and by raw frames for the
// preface, flow control and a client that breaks the protocol.
#include "app/servers/http_server.h"
#include "blocking_client.h"
#include "cli_process.h"
#include "embedded_server_support.h"
#include "required_here.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <optional>
#include <string>
#include <thread>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr uint8_t kData = 0, kHeaders = 1, kSettings = 4, kGoaway = 7, kWindowUpdate = 8;
constexpr uint8_t kEndStream = 0x1, kEndHeaders = 0x4;

std::string frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
    const size_t length = payload.size();
    std::string bytes{char(length >> 16), char(length >> 8), char(length),
                      char(type),         char(flags),       char(stream >> 24),
                      char(stream >> 16), char(stream >> 8), char(stream)};
    return bytes.append(payload);
}

// A GET of "/" on stream 1, whole in one HEADERS frame. Its header block uses HPACK's static
// table: :method GET (2), :scheme http (6), :path / (4), and :authority (1) with the literal "x".
std::string getRequest() {
    return frame(kHeaders, kEndStream | kEndHeaders, 1, "\x82\x86\x84\x01\x01x");
}

std::string windowUpdate(uint32_t stream, uint32_t increment) {
    const std::string payload{char(increment >> 24), char(increment >> 16), char(increment >> 8),
                              char(increment)};
    return frame(kWindowUpdate, 0, stream, payload);
}

struct Frame {
    uint8_t type = 0;
    uint8_t flags = 0;
    uint32_t stream = 0;
    std::string payload;
};

std::optional<Frame> readFrame(const Socket& socket) {
    const std::string head = receiveExactly(socket, 9);
    if (head.size() != 9)
        return std::nullopt;
    const auto byte = [&](int i) {
        return uint32_t(uint8_t(head[size_t(i)]));
    };
    Frame result;
    const size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    result.type = uint8_t(byte(3));
    result.flags = uint8_t(byte(4));
    result.stream = ((byte(5) & 0x7f) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8);
    result.payload = receiveExactly(socket, length);
    if (result.payload.size() != length)
        return std::nullopt;
    return result;
}

// The body of stream 1 as it arrives, until END_STREAM or `limit` bytes.
std::string readBody(const Socket& socket, size_t limit, bool* ended) {
    std::string body;
    *ended = false;
    while (body.size() < limit) {
        const auto next = readFrame(socket);
        if (!next)
            break;
        if (next->type == kData && next->stream == 1)
            body += next->payload;
        if (next->stream == 1 && (next->flags & kEndStream)) {
            *ended = true;
            break;
        }
    }
    return body;
}

HttpServerConfig http2Config(size_t documentSize, bool tls) {
    HttpServerConfig config = httpConfig(documentSize, 2);
    config.http2 = true;
    config.tls = tls;
    return config;
}

QString urlOf(const HttpServer& server, bool tls) {
    return QStringLiteral("%1://127.0.0.1:%2/")
        .arg(tls ? QStringLiteral("https") : QStringLiteral("http"))
        .arg(server.port());
}

// One figure of h2load's report, or -1 when the line is not there.
qint64 figure(const QByteArray& report, const char* linePattern) {
    const auto match =
        QRegularExpression(QString::fromLatin1(linePattern), QRegularExpression::MultilineOption)
            .match(QString::fromUtf8(report));
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

} // namespace

class TestHttp2Server : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void h2loadGetsEveryDocument_data();
    void h2loadGetsEveryDocument();
    void clientsLeavingMidResponse_data();
    void clientsLeavingMidResponse();
    void curlGetsTheDocument_data();
    void curlGetsTheDocument();
    void http1IsStillServedBesideH2();
    void prefaceSplitAcrossWrites();
    void dataWaitsForTheClientsWindow();
    void garbageAfterThePrefaceGetsGoaway_data();
    void garbageAfterThePrefaceGetsGoaway();
    void cliRefusesMisplacedH2_data();
    void cliRefusesMisplacedH2();
};

void TestHttp2Server::h2loadGetsEveryDocument_data() {
    QTest::addColumn<bool>("tls");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("requests");
    QTest::addColumn<QStringList>("options");
    const QStringList load{QStringLiteral("-c"), QStringLiteral("4"), QStringLiteral("-m"),
                           QStringLiteral("10")};
    QTest::newRow("h2c") << false << 4897 << 2000 << load;
    QTest::newRow("h2c empty document") << false << 0 << 500 << load;
    QTest::newRow("h2 over tls") << true << 4897 << 1000 << load;
    // Windows of 64 KiB - 1 (2^16 - 1) against 200 KB documents: every stream waits for
    // WINDOW_UPDATEs, several at once on each connection.
    QTest::newRow("h2c small windows")
        << false << 200000 << 200
        << (QStringList(load) << QStringLiteral("-w") << QStringLiteral("16")
                              << QStringLiteral("-W") << QStringLiteral("16"));
    QTest::newRow("h2 over tls small windows")
        << true << 200000 << 100
        << (QStringList(load) << QStringLiteral("-w") << QStringLiteral("16")
                              << QStringLiteral("-W") << QStringLiteral("16"));
}

void TestHttp2Server::h2loadGetsEveryDocument() {
    QFETCH(bool, tls);
    QFETCH(int, size);
    QFETCH(int, requests);
    QFETCH(QStringList, options);
    const QString h2load = toolPath(QStringLiteral("h2load"));
    if (h2load.isEmpty())
        LOADSCOPE_SKIP_UNLESS_REQUIRED(
            QStringLiteral("h2load"),
            QStringLiteral("h2load (Debian nghttp2-client) is not installed"));
    HttpServer server(http2Config(size_t(size), tls));
    QVERIFY(startServer(server));
    const CliOutcome run =
        runProgram(h2load, QStringList{QStringLiteral("-n"), QString::number(requests)}
                               << options << urlOf(server, tls));
    QCOMPARE(run.exitCode, 0);
    const QByteArray& report = run.out;
    QVERIFY2(report.contains(tls ? "Application protocol: h2\n" : "Application protocol: h2c\n"),
             report.constData());
    QCOMPARE(figure(report, "^requests: (\\d+) total"), qint64(requests));
    QCOMPARE(figure(report, "^requests: .* (\\d+) succeeded,"), qint64(requests));
    QCOMPARE(figure(report, "^requests: .* (\\d+) failed,"), qint64(0));
    QCOMPARE(figure(report, "^requests: .* (\\d+) errored,"), qint64(0));
    QCOMPARE(figure(report, "^status codes: (\\d+) 2xx,"), qint64(requests));
    QCOMPARE(figure(report, "^traffic: .*\\((\\d+)\\) data$"), qint64(requests) * size);
    server.stop();
    QCOMPARE(server.stats().requests, uint64_t(requests));
    QCOMPARE(server.stats().errors, uint64_t(0));
}

void TestHttp2Server::clientsLeavingMidResponse_data() {
    QTest::addColumn<bool>("tls");
    QTest::newRow("h2c") << false;
    QTest::newRow("h2 over tls") << true;
}

void TestHttp2Server::clientsLeavingMidResponse() {
    // h2load -D stops its clients wherever their streams are: 1 MB documents are mid-flight.
    // Writes to the gone clients fail (over TLS, without SIGPIPE ending this process) and the
    // server serves the next client whole.
    QFETCH(bool, tls);
    const QString h2load = toolPath(QStringLiteral("h2load"));
    if (h2load.isEmpty())
        LOADSCOPE_SKIP_UNLESS_REQUIRED(
            QStringLiteral("h2load"),
            QStringLiteral("h2load (Debian nghttp2-client) is not installed"));
    HttpServer server(http2Config(1000000, tls));
    QVERIFY(startServer(server));
    const CliOutcome timed =
        runProgram(h2load, {QStringLiteral("-D"), QStringLiteral("1"), QStringLiteral("-c"),
                            QStringLiteral("4"), QStringLiteral("-m"), QStringLiteral("8"),
                            urlOf(server, tls)});
    QCOMPARE(timed.exitCode, 0);
    const CliOutcome after =
        runProgram(h2load, {QStringLiteral("-n"), QStringLiteral("20"), QStringLiteral("-m"),
                            QStringLiteral("4"), urlOf(server, tls)});
    QCOMPARE(figure(after.out, "^requests: .* (\\d+) succeeded,"), qint64(20));
    QCOMPARE(figure(after.out, "^traffic: .*\\((\\d+)\\) data$"), qint64(20) * 1000000);
}

void TestHttp2Server::curlGetsTheDocument_data() {
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("head");
    QTest::addColumn<int>("uploadSize"); // a POST body; 0: a GET
    QTest::newRow("h2c prior knowledge") << false << false << 0;
    QTest::newRow("h2c HEAD") << false << true << 0;
    QTest::newRow("h2 by ALPN") << true << false << 0;
    // More than the 65535 bytes a stream may send before the server's WINDOW_UPDATE.
    QTest::newRow("h2c POST of 300 KB") << false << false << 300000;
}

void TestHttp2Server::curlGetsTheDocument() {
    QFETCH(bool, tls);
    QFETCH(bool, head);
    QFETCH(int, uploadSize);
    const QString curl = toolPath(QStringLiteral("curl"));
    if (curl.isEmpty())
        QSKIP("curl is not installed");
    HttpServer server(http2Config(12345, tls));
    QVERIFY(startServer(server));
    QTemporaryDir dir;
    const QString body = dir.filePath(QStringLiteral("body"));
    QStringList arguments{QStringLiteral("-s"), QStringLiteral("-o"), body, QStringLiteral("-w"),
                          QStringLiteral("%{http_version} %{http_code} %{size_download}")};
    if (tls) {
        const QString ca = dir.filePath(QStringLiteral("ca.pem"));
        QFile file(ca);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(server.certificatePem()));
        file.close();
        arguments << QStringLiteral("--http2") << QStringLiteral("--cacert") << ca;
    } else {
        arguments << QStringLiteral("--http2-prior-knowledge");
    }
    if (head)
        arguments << QStringLiteral("-I");
    if (uploadSize > 0) {
        const QString upload = dir.filePath(QStringLiteral("upload"));
        QFile file(upload);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(uploadSize, 'u'));
        file.close();
        arguments << QStringLiteral("--data-binary") << QLatin1Char('@') + upload;
    }
    const CliOutcome run = runProgram(curl, arguments << urlOf(server, tls), 20000);
    QCOMPARE(run.exitCode, 0);
    QFile received(body);
    QVERIFY(received.open(QIODevice::ReadOnly));
    const QByteArray bytes = received.readAll();
    if (head) {
        QCOMPARE(run.out, QByteArray("2 200 0"));
        QVERIFY2(bytes.contains("content-length: 12345\r\n"), bytes.constData());
    } else {
        QCOMPARE(run.out, QByteArray("2 200 12345"));
        QCOMPARE(bytes.toStdString(), HttpServer::makeDocument(12345));
    }
}

void TestHttp2Server::http1IsStillServedBesideH2() {
    // Without the preface a cleartext connection is HTTP/1.1, a request whose method happens to
    // begin as the preface does too.
    HttpServer server(http2Config(4897, false));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, kGetRequest));
    QCOMPARE(receiveHttpResponse(client), expectedResponse(4897));
    Socket other = connectTo(server.port());
    QVERIFY(sendAll(other, "PRI"));
    std::this_thread::sleep_for(20ms);
    QVERIFY(sendAll(other, " / HTTP/1.1\r\nHost: x\r\n\r\n"));
    QCOMPARE(receiveHttpResponse(other), expectedResponse(4897));
}

void TestHttp2Server::prefaceSplitAcrossWrites() {
    HttpServer server(http2Config(4897, false));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, kPreface.substr(0, 5)));
    std::this_thread::sleep_for(20ms);
    QVERIFY(sendAll(client,
                    std::string(kPreface.substr(5)) + frame(kSettings, 0, 0, "") + getRequest()));
    const auto settings = readFrame(client);
    QVERIFY(settings);
    QCOMPARE(settings->type, kSettings); // the server's preface
    bool ended = false;
    QCOMPARE(readBody(client, 1 << 20, &ended), HttpServer::makeDocument(4897));
    QVERIFY(ended);
}

void TestHttp2Server::dataWaitsForTheClientsWindow() {
    // The client never raised its windows from 65535: that much of a 100000-byte document
    // comes, then nothing until a WINDOW_UPDATE for the stream and one for the connection.
    HttpServer server(http2Config(100000, false));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, std::string(kPreface) + frame(kSettings, 0, 0, "") + getRequest()));
    bool ended = false;
    std::string body = readBody(client, 65535, &ended);
    QCOMPARE(body.size(), size_t(65535));
    QVERIFY(!ended);
    QVERIFY(staysQuiet(client, 100ms));
    QVERIFY(sendAll(client, windowUpdate(1, 100000 - 65535) + windowUpdate(0, 100000 - 65535)));
    body += readBody(client, 1 << 20, &ended);
    QVERIFY(ended);
    QCOMPARE(body, HttpServer::makeDocument(100000));
}

void TestHttp2Server::garbageAfterThePrefaceGetsGoaway_data() {
    QTest::addColumn<QByteArray>("garbage");
    QTest::newRow("bytes that are no frame") << QByteArray(200, 'x');
    const std::string settings = frame(kSettings, 0, 0, "");
    // Only the head of a DATA frame of 16 MiB - 1, beyond the 16 KiB the server allows: the
    // server need not read the rest to refuse it.
    std::string huge = frame(kData, 0, 1, "");
    huge[0] = huge[1] = huge[2] = '\xff';
    QTest::newRow("a frame beyond the largest size")
        << QByteArray::fromStdString(settings + huge + std::string(100, 'd'));
    QTest::newRow("a header block HPACK cannot decode") << QByteArray::fromStdString(
        settings + frame(kHeaders, kEndStream | kEndHeaders, 1, "\xff\xff\xff\xff\xff"));
}

void TestHttp2Server::garbageAfterThePrefaceGetsGoaway() {
    QFETCH(QByteArray, garbage);
    HttpServer server(http2Config(4897, false));
    QVERIFY(startServer(server));
    {
        Socket client = connectTo(server.port());
        QVERIFY(client.isValid());
        QVERIFY(sendAll(client, std::string(kPreface) + garbage.toStdString()));
        std::string received;
        QCOMPARE(receiveUntilClosed(client, &received), EndOfStream::Closed);
        bool goaway = false;
        for (size_t at = 0; at + 9 <= received.size();) {
            const size_t length = (size_t(uint8_t(received[at])) << 16) |
                                  (size_t(uint8_t(received[at + 1])) << 8) |
                                  size_t(uint8_t(received[at + 2]));
            goaway = goaway || uint8_t(received[at + 3]) == kGoaway;
            at += 9 + length;
        }
        QVERIFY2(goaway, "no GOAWAY before the close");
        QTRY_COMPARE_WITH_TIMEOUT(server.stats().errors, uint64_t(1), 5000);
    }
    // The server goes on serving others.
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, std::string(kPreface) + frame(kSettings, 0, 0, "") + getRequest()));
    bool ended = false;
    QCOMPARE(readBody(client, 1 << 20, &ended), HttpServer::makeDocument(4897));
    QVERIFY(ended);
}

void TestHttp2Server::cliRefusesMisplacedH2_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("echo has no --h2")
        << QStringList{QStringLiteral("echo"), QStringLiteral("--h2")} << QByteArray("h2");
    QTest::newRow("--h2 takes no value")
        << QStringList{QStringLiteral("http"), QStringLiteral("--h2=yes")} << QByteArray("h2");
    QTest::newRow("--h2 with --key and no --cert")
        << QStringList{QStringLiteral("http"), QStringLiteral("--h2"), QStringLiteral("--tls"),
                       QStringLiteral("--key"), QStringLiteral("k.pem")}
        << QByteArray("--cert");
}

void TestHttp2Server::cliRefusesMisplacedH2() {
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, message);
    const CliOutcome outcome = runCliProcess(QStringList{QStringLiteral("serve")} << arguments);
    QCOMPARE(outcome.exitCode, 2);
    QCOMPARE(outcome.errorLines().size(), 1);
    QVERIFY2(outcome.err.contains(message), outcome.err.constData());
    QVERIFY(outcome.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestHttp2Server)
#include "tst_http2_server.moc"
