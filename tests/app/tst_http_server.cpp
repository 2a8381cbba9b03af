// The embedded HTTP server (`loadscope-cli serve http`), driven in-process by
// blocking client sockets: exact responses, keep-alive, pipelining, bad input.
#include "app/servers/http_server.h"
#include "blocking_client.h"
#include "embedded_server_support.h"
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "stop_with_test.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace std::chrono_literals;

class TestHttpServer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void httpResponseIsExact();
    void httpKeepAliveServesManyRequests();
    void httpPipelinedRequestsAnsweredInOrder();
    void httpHeadHasNoBody();
    void httpConnectionHandling_data();
    void httpConnectionHandling();
    void httpDocumentSizes_data();
    void httpDocumentSizes();
    void httpRequestSplitAcrossWrites();
    void httpRejectsOversizedHead();
    void httpRejectsMalformedRequest();
    void httpServesConcurrentClientsOnSeveralThreads();
    void httpsServesTheEngineExactly_data();
    void httpsServesTheEngineExactly();
    void httpsRefusesAPlainClient();
};

void TestHttpServer::httpsServesTheEngineExactly_data() {
    QTest::addColumn<bool>("keepAlive");
    QTest::newRow("keep-alive") << true;
    QTest::newRow("a connection per request") << false;
}

void TestHttpServer::httpsServesTheEngineExactly() {
    // The engine's https client against `serve http --tls`, verifying the
    // self-signed certificate the server made: exact counts and bytes, one
    // handshake per connection, and the later connections resumed.
    QFETCH(bool, keepAlive);
    HttpServerConfig config = httpConfig(4897, 2);
    config.tls = true;
    HttpServer server(config);
    QVERIFY(startServer(server));
    QTemporaryDir dir;
    const QString caFile = dir.filePath(QStringLiteral("ca.pem"));
    {
        QFile ca(caFile);
        QVERIFY(ca.open(QIODevice::WriteOnly));
        ca.write(QByteArray::fromStdString(server.certificatePem()));
    }
    constexpr uint64_t kRequests = 200;
    loadscope::engine::HttpRequestSpec request;
    request.host = "localhost:" + std::to_string(server.port());
    request.keepAlive = keepAlive;
    loadscope::engine::LoadSpec spec;
    spec.protocol = std::make_shared<loadscope::engine::HttpProtocol>(request);
    spec.target = *loadscope::engine::SocketAddress::fromNumeric("127.0.0.1", server.port());
    spec.concurrency = 2;
    spec.threads = 2;
    spec.requests = kRequests;
    spec.requestTimeout = 10s;
    spec.tls.enabled = true;
    spec.tls.serverName = "localhost";
    spec.tls.caFile = caFile.toStdString();
    spec.tls.caPem = server.certificatePem();
    loadscope::engine::LoadRun run(spec);
    run.start();
    const loadscope::engine::RunResult r = run.wait();
    QVERIFY2(r.firstError.empty(), r.firstError.c_str());
    QCOMPARE(r.complete, kRequests);
    QCOMPARE(r.failed, 0u);
    const std::string& response = keepAlive ? server.keepAliveResponse() : server.closeResponse();
    QCOMPARE(r.bytesTotal, kRequests * response.size());
    QCOMPARE(r.bytesBody, kRequests * 4897);
    // A connection per request: a handshake each. Kept alive: one per
    // connection that served, which is both, or one when its thread took
    // every request of the shared budget before the other's handshake ended
    // (that one is abandoned, uncounted).
    if (keepAlive)
        QVERIFY2(r.tlsHandshakes >= 1 && r.tlsHandshakes <= 2,
                 qPrintable(QString::number(r.tlsHandshakes)));
    else
        QCOMPARE(r.tlsHandshakes, kRequests);
    QCOMPARE(r.tls.count(), r.tlsHandshakes);
    // Resumed: all but the first of each thread that handshook (kept alive,
    // each connection is its thread's first).
    if (keepAlive)
        QCOMPARE(r.tlsResumed, 0u);
    else
        QVERIFY2(r.tlsResumed + 2 >= r.tlsHandshakes && r.tlsResumed + 1 <= r.tlsHandshakes,
                 qPrintable(QStringLiteral("%1 of %2").arg(r.tlsResumed).arg(r.tlsHandshakes)));
    server.stop();
    QCOMPARE(server.stats().requests, kRequests);
    QCOMPARE(server.stats().bytesSent, kRequests * response.size());
}

void TestHttpServer::httpsRefusesAPlainClient() {
    // A plain request on the TLS port is no ClientHello: the connection is
    // closed and counted, never served and never left hanging.
    HttpServerConfig config = httpConfig();
    config.tls = true;
    HttpServer server(config);
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    QTRY_COMPARE_WITH_TIMEOUT(server.stats().errors, uint64_t(1), 5000);
    QCOMPARE(server.stats().requests, uint64_t(0));
}

void TestHttpServer::httpResponseIsExact() {
    HttpServer server(httpConfig());
    QVERIFY(startServer(server));
    QVERIFY(server.port() != 0);
    QCOMPARE(server.address(), "127.0.0.1:" + std::to_string(server.port()));

    Socket client = connectTo(server.port());
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    const std::string response = receiveHttpResponse(client);
    const std::string head = expectedHead(4897, true);
    QCOMPARE(response.size(), head.size() + 4897);
    QCOMPARE(response.substr(0, head.size()), head);
    const std::string body = response.substr(head.size());
    QVERIFY(body.starts_with("<!DOCTYPE html>"));
    QVERIFY(body.ends_with("</html>\n"));
    QCOMPARE(body, HttpServer::makeDocument(4897));
    QVERIFY(staysQuiet(client, 50ms));
    server.stop();
    QCOMPARE(server.stats().requests, uint64_t(1));
    QCOMPARE(server.stats().connections, uint64_t(1));
    QCOMPARE(server.stats().bytesSent, uint64_t(response.size()));
}

void TestHttpServer::httpKeepAliveServesManyRequests() {
    HttpServer server(httpConfig(100));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    const std::string expected = expectedHead(100, true) + HttpServer::makeDocument(100);
    for (int i = 0; i < 20; ++i) {
        QVERIFY(sendAll(client, "GET /page" + std::to_string(i) +
                                    " HTTP/1.1\r\nHost: x\r\nUser-Agent: test\r\n\r\n"));
        QCOMPARE(receiveHttpResponse(client), expected);
    }
    server.stop();
    QCOMPARE(server.stats().connections, uint64_t(1));
    QCOMPARE(server.stats().requests, uint64_t(20));
}

void TestHttpServer::httpPipelinedRequestsAnsweredInOrder() {
    HttpServer server(httpConfig(64));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    const std::string document = HttpServer::makeDocument(64);
    const std::string full = expectedHead(64, true) + document;
    const std::string head = expectedHead(64, true);
    const std::string last = expectedHead(64, false) + document;

    // GET, HEAD, a POST whose body must be skipped, another GET, and a closing GET: one write.
    std::string requests;
    requests += "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n";
    requests += "HEAD /2 HTTP/1.1\r\nHost: x\r\n\r\n";
    requests += "POST /3 HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nGET / HTTP/";
    requests += "GET /4 HTTP/1.1\r\nHost: x\r\n\r\n";
    requests += "GET /5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    requests += "GET /6 HTTP/1.1\r\nHost: x\r\n\r\n"; // after close: never answered
    QVERIFY(sendAll(client, requests));

    std::string received;
    QCOMPARE(receiveUntilClosed(client, &received), EndOfStream::Closed);
    QCOMPARE(received, full + head + full + full + last);
}

void TestHttpServer::httpHeadHasNoBody() {
    HttpServer server(httpConfig());
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"));
    QCOMPARE(receiveHttpResponse(client, true), expectedHead(4897, true));
    // Had a body followed, it would be read here as the next response.
    QVERIFY(staysQuiet(client, 50ms));
    QVERIFY(sendAll(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    QCOMPARE(receiveHttpResponse(client),
             expectedHead(4897, true) + HttpServer::makeDocument(4897));
}

void TestHttpServer::httpConnectionHandling_data() {
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<bool>("keepAlive");
    QTest::newRow("1.1 default") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n") << true;
    QTest::newRow("1.1 close") << QByteArray("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
                               << false;
    QTest::newRow("1.1 close, mixed case list")
        << QByteArray("GET / HTTP/1.1\r\nconnection: TE, Close\r\n\r\n") << false;
    QTest::newRow("1.0 default") << QByteArray("GET / HTTP/1.0\r\n\r\n") << false;
    QTest::newRow("1.0 keep-alive (ab -k)")
        << QByteArray("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: x\r\n\r\n") << true;
    QTest::newRow("bare LF line ends") << QByteArray("GET / HTTP/1.1\nHost: x\n\n") << true;
    QTest::newRow("chunked body: answer, then close")
        << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") << false;
}

void TestHttpServer::httpConnectionHandling() {
    QFETCH(QByteArray, request);
    QFETCH(bool, keepAlive);
    HttpServer server(httpConfig(10));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, request.toStdString()));
    QCOMPARE(receiveHttpResponse(client),
             expectedHead(10, keepAlive) + HttpServer::makeDocument(10));
    if (keepAlive)
        QVERIFY(staysQuiet(client, 50ms));
    else
        QCOMPARE(receiveUntilClosed(client), EndOfStream::Closed);
}

void TestHttpServer::httpDocumentSizes_data() {
    QTest::addColumn<qulonglong>("size");
    QTest::newRow("0") << 0ULL;
    QTest::newRow("1") << 1ULL;
    QTest::newRow("4897") << 4897ULL;
    QTest::newRow("1 MiB") << qulonglong(1 << 20);
}

void TestHttpServer::httpDocumentSizes() {
    QFETCH(qulonglong, size);
    HttpServer server(httpConfig(size));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    const std::string expected = expectedHead(size, true) + HttpServer::makeDocument(size);
    QCOMPARE(HttpServer::makeDocument(size).size(), size_t(size));
    for (int i = 0; i < 2; ++i) {
        QVERIFY(sendAll(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
        QCOMPARE(receiveHttpResponse(client), expected);
    }
}

void TestHttpServer::httpRequestSplitAcrossWrites() {
    HttpServer server(httpConfig(10));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    const std::string request = "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
    for (const char byte : request) {
        QVERIFY(sendAll(client, std::string(1, byte)));
        std::this_thread::sleep_for(1ms); // separate segments, separate reads
    }
    QCOMPARE(receiveHttpResponse(client), expectedHead(10, true) + HttpServer::makeDocument(10));
    QVERIFY(staysQuiet(client, 50ms));
    QCOMPARE(server.stats().requests, uint64_t(1));
}

void TestHttpServer::httpRejectsOversizedHead() {
    HttpServer server(httpConfig());
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    std::string head = "GET / HTTP/1.1\r\n";
    while (head.size() <= HttpServer::kMaxHeadSize + 1024)
        head += "X-Padding: " + std::string(100, 'p') + "\r\n";
    sendAll(client, head); // the server may close before taking all of it
    std::string received;
    const EndOfStream end = receiveUntilClosed(client, &received);
    QVERIFY(end != EndOfStream::TimedOut);
    QVERIFY2(received.starts_with("HTTP/1.1 400 Bad Request\r\n") || end == EndOfStream::Reset,
             received.c_str());
    QCOMPARE(server.stats().errors, uint64_t(1));
}

void TestHttpServer::httpRejectsMalformedRequest() {
    HttpServer server(httpConfig());
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, "this is not http\r\n\r\n"));
    std::string received;
    QCOMPARE(receiveUntilClosed(client, &received), EndOfStream::Closed);
    QVERIFY2(received.starts_with("HTTP/1.1 400 Bad Request\r\n"), received.c_str());
    QVERIFY(received.find("Connection: close\r\n") != std::string::npos);
}

void TestHttpServer::httpServesConcurrentClientsOnSeveralThreads() {
    HttpServer server(httpConfig(2000, 4));
    QVERIFY(startServer(server));
    const std::string expected = expectedHead(2000, true) + HttpServer::makeDocument(2000);
    constexpr int kClients = 16;
    constexpr int kRequests = 25;
    std::atomic<int> good{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
        clients.emplace_back([&] {
            Socket client = connectTo(server.port());
            for (int i = 0; i < kRequests; ++i) {
                if (!sendAll(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") ||
                    receiveHttpResponse(client) != expected)
                    return;
                good.fetch_add(1);
            }
        });
    }
    for (auto& thread : clients)
        thread.join();
    QCOMPARE(good.load(), kClients * kRequests);
    server.stop();
    QCOMPARE(server.stats().requests, uint64_t(kClients * kRequests));
    QCOMPARE(server.stats().connections, uint64_t(kClients));
}

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_http_server.moc"
