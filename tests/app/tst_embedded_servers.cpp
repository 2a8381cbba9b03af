// The embedded target servers and the proxy, driven in-process by blocking client sockets, plus
// the real `loadscope-cli serve` executable.
#include "app/servers/echo_server.h"
#include "app/servers/http_server.h"
#include "app/servers/sink_server.h"
#include "app/servers/tcp_proxy.h"
#include "blocking_client.h"
#include "stop_with_test.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace std::chrono_literals;

namespace {

std::string expectedHead(size_t bodySize, bool keepAlive) {
    return "HTTP/1.1 200 OK\r\nServer: loadscope\r\nContent-Type: text/html\r\nContent-Length: " +
           std::to_string(bodySize) + "\r\nConnection: " + (keepAlive ? "keep-alive" : "close") +
           "\r\n\r\n";
}

template <typename Server> bool startServer(Server& server) {
    const auto started = server.start();
    if (!started)
        qWarning("start failed: %s", qPrintable(started.error().toString()));
    return started.ok();
}

HttpServerConfig httpConfig(size_t documentSize = 4897, uint32_t threads = 1) {
    HttpServerConfig config;
    config.documentSize = documentSize;
    config.threads = threads;
    return config;
}

TcpProxyConfig proxyConfig(uint16_t upstreamPort, uint32_t threads = 1) {
    TcpProxyConfig config;
    config.upstreamPort = upstreamPort;
    config.threads = threads;
    return config;
}

} // namespace

class TestEmbeddedServers : public QObject {
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
    void echoAnswersEveryRequest_data();
    void echoAnswersEveryRequest();
    void echoWaitsForWholeRequest();
    void sinkCountsBytes();
    void proxyRelaysByteExactUnderLoad();
    void proxyPropagatesHalfClose();
    void proxySurvivesClientClosingMidTransfer();
    void proxySurvivesUpstreamClosingMidTransfer();
    void proxyClosesClientWhenUpstreamIsDown();
    void portInUseFailsWithClearMessage();
    void stopIsIdempotentAndServerRestarts();
    void cliServeHttpRunsAndStopsOnSigterm();
    void cliServeReportsPortInUse();
};

void TestEmbeddedServers::httpResponseIsExact() {
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

void TestEmbeddedServers::httpKeepAliveServesManyRequests() {
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

void TestEmbeddedServers::httpPipelinedRequestsAnsweredInOrder() {
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

void TestEmbeddedServers::httpHeadHasNoBody() {
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

void TestEmbeddedServers::httpConnectionHandling_data() {
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

void TestEmbeddedServers::httpConnectionHandling() {
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

void TestEmbeddedServers::httpDocumentSizes_data() {
    QTest::addColumn<qulonglong>("size");
    QTest::newRow("0") << 0ULL;
    QTest::newRow("1") << 1ULL;
    QTest::newRow("4897") << 4897ULL;
    QTest::newRow("1 MiB") << qulonglong(1 << 20);
}

void TestEmbeddedServers::httpDocumentSizes() {
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

void TestEmbeddedServers::httpRequestSplitAcrossWrites() {
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

void TestEmbeddedServers::httpRejectsOversizedHead() {
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

void TestEmbeddedServers::httpRejectsMalformedRequest() {
    HttpServer server(httpConfig());
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, "this is not http\r\n\r\n"));
    std::string received;
    QCOMPARE(receiveUntilClosed(client, &received), EndOfStream::Closed);
    QVERIFY2(received.starts_with("HTTP/1.1 400 Bad Request\r\n"), received.c_str());
    QVERIFY(received.find("Connection: close\r\n") != std::string::npos);
}

void TestEmbeddedServers::httpServesConcurrentClientsOnSeveralThreads() {
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

void TestEmbeddedServers::echoAnswersEveryRequest_data() {
    QTest::addColumn<int>("requestSize");
    QTest::addColumn<int>("responseSize");
    QTest::newRow("1,1 (netperf TCP_RR)") << 1 << 1;
    QTest::newRow("100,200") << 100 << 200;
    QTest::newRow("300,5") << 300 << 5;
    QTest::newRow("64K,64K") << 65536 << 65536;
}

void TestEmbeddedServers::echoAnswersEveryRequest() {
    QFETCH(int, requestSize);
    QFETCH(int, responseSize);
    EchoServerConfig config;
    config.requestSize = size_t(requestSize);
    config.responseSize = size_t(responseSize);
    config.threads = 2;
    EchoServer server(config);
    QVERIFY(startServer(server));

    constexpr int kConnections = 6;
    constexpr int kRounds = 30;
    std::vector<Socket> clients;
    for (int c = 0; c < kConnections; ++c) {
        clients.push_back(connectTo(server.port()));
        QVERIFY(clients.back().isValid());
    }
    for (int round = 0; round < kRounds; ++round) {
        std::vector<std::string> requests;
        for (int c = 0; c < kConnections; ++c) {
            requests.push_back(randomBytes(size_t(requestSize), uint64_t(round * 100 + c)));
            QVERIFY(sendAll(clients[size_t(c)], requests.back()));
        }
        for (int c = 0; c < kConnections; ++c) {
            const std::string response = receiveExactly(clients[size_t(c)], size_t(responseSize));
            QCOMPARE(response.size(), size_t(responseSize));
            if (requestSize == responseSize)
                QVERIFY(response == requests[size_t(c)]); // a true echo
        }
    }
    for (const Socket& client : clients)
        QVERIFY(staysQuiet(client, 20ms)); // exactly S bytes per request, nothing more
    QCOMPARE(server.stats().requests, uint64_t(kConnections * kRounds));
    QCOMPARE(server.stats().bytesReceived,
             uint64_t(kConnections * kRounds) * uint64_t(requestSize));
}

void TestEmbeddedServers::echoWaitsForWholeRequest() {
    EchoServerConfig config;
    config.requestSize = 100;
    config.responseSize = 7;
    EchoServer server(config);
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, std::string(60, 'a')));
    QVERIFY(staysQuiet(client, 100ms));
    QVERIFY(sendAll(client, std::string(39, 'a')));
    QVERIFY(staysQuiet(client, 50ms));
    // The last byte of the first request and the first 150 of the next two.
    QVERIFY(sendAll(client, std::string(151, 'a')));
    QCOMPARE(receiveExactly(client, 14).size(), size_t(14));
    QVERIFY(staysQuiet(client, 50ms));
    QVERIFY(sendAll(client, std::string(50, 'a')));
    QCOMPARE(receiveExactly(client, 7).size(), size_t(7));
}

void TestEmbeddedServers::sinkCountsBytes() {
    SinkServer server;
    QVERIFY(startServer(server));
    constexpr size_t kBytes = 1 << 20;
    for (int c = 0; c < 3; ++c) {
        Socket client = connectTo(server.port());
        QVERIFY(sendAll(client, randomBytes(kBytes, uint64_t(c))));
        ::shutdown(client.fd(), SHUT_WR);
        QCOMPARE(receiveUntilClosed(client), EndOfStream::Closed); // the sink read it all
    }
    QCOMPARE(server.stats().bytesReceived, uint64_t(3 * kBytes));
    QCOMPARE(server.stats().bytesSent, uint64_t(0));
    QTRY_COMPARE_WITH_TIMEOUT(server.stats().activeConnections, uint64_t(0), 5000);
}

void TestEmbeddedServers::proxyRelaysByteExactUnderLoad() {
    EchoServerConfig echoConfig; // 1,1: every byte comes back unchanged
    echoConfig.threads = 2;
    EchoServer echo(echoConfig);
    QVERIFY(startServer(echo));
    TcpProxy proxy(proxyConfig(echo.port(), 2));
    QVERIFY(startServer(proxy));
    QCOMPARE(proxy.upstreamAddress(), echo.address());

    constexpr int kConnections = 20;
    constexpr size_t kBytes = 1 << 20;
    std::vector<std::string> sent(kConnections);
    std::vector<Exchange> results(kConnections);
    std::vector<std::thread> clients;
    for (int c = 0; c < kConnections; ++c) {
        sent[size_t(c)] = randomBytes(kBytes, uint64_t(1000 + c));
        clients.emplace_back([&, c] {
            Socket client = connectTo(proxy.port());
            if (client.isValid())
                results[size_t(c)] = exchangeThenHalfClose(client, sent[size_t(c)], 60s);
        });
    }
    for (auto& thread : clients)
        thread.join();
    for (int c = 0; c < kConnections; ++c) {
        const Exchange& result = results[size_t(c)];
        QVERIFY2(result.sentAll, qPrintable(QStringLiteral("connection %1").arg(c)));
        QCOMPARE(result.end, EndOfStream::Closed);
        QCOMPARE(result.received.size(), kBytes);
        QCOMPARE(std::hash<std::string>()(result.received),
                 std::hash<std::string>()(sent[size_t(c)]));
        QVERIFY(result.received == sent[size_t(c)]);
    }
    QTRY_COMPARE_WITH_TIMEOUT(proxy.stats().activeConnections, uint64_t(0), 5000);
    const ServerStats stats = proxy.stats();
    QCOMPARE(stats.connections, uint64_t(kConnections));
    QCOMPARE(stats.requests, uint64_t(kConnections)); // upstream connections made
    QCOMPARE(stats.errors, uint64_t(0));
    QCOMPARE(stats.bytesReceived, uint64_t(2 * kConnections) * kBytes);
    QCOMPARE(stats.bytesSent, uint64_t(2 * kConnections) * kBytes);
}

void TestEmbeddedServers::proxyPropagatesHalfClose() {
    RawListener upstream;
    TcpProxy proxy(proxyConfig(upstream.port()));
    QVERIFY(startServer(proxy));

    // The upstream reads until the client's FIN arrives, then answers and closes.
    std::string upstreamSaw;
    EndOfStream upstreamEnd = EndOfStream::TimedOut;
    std::thread server([&] {
        Socket peer = upstream.accept(5s);
        if (!peer.isValid())
            return;
        upstreamEnd = receiveUntilClosed(peer, &upstreamSaw);
        sendAll(peer, "answer after FIN: " + upstreamSaw);
    });
    Socket client = connectTo(proxy.port());
    QVERIFY(sendAll(client, "question"));
    QCOMPARE(::shutdown(client.fd(), SHUT_WR), 0);
    std::string received;
    const EndOfStream clientEnd = receiveUntilClosed(client, &received);
    server.join();
    QCOMPARE(upstreamEnd, EndOfStream::Closed);
    QCOMPARE(upstreamSaw, std::string("question"));
    QCOMPARE(clientEnd, EndOfStream::Closed);
    QCOMPARE(received, std::string("answer after FIN: question"));
    QTRY_COMPARE_WITH_TIMEOUT(proxy.stats().activeConnections, uint64_t(0), 5000);
}

void TestEmbeddedServers::proxySurvivesClientClosingMidTransfer() {
    EchoServer echo;
    QVERIFY(startServer(echo));
    TcpProxy proxy(proxyConfig(echo.port()));
    QVERIFY(startServer(proxy));
    for (int c = 0; c < 5; ++c) {
        Socket client = connectTo(proxy.port());
        // Without reading: the relay fills up, then the client vanishes with data in flight.
        fcntl(client.fd(), F_SETFL, fcntl(client.fd(), F_GETFL) | O_NONBLOCK);
        const std::string data = randomBytes(4 << 20, uint64_t(c));
        size_t sent = 0;
        for (int i = 0; i < 200 && sent < data.size(); ++i) {
            const ssize_t n =
                ::send(client.fd(), data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
            if (n > 0)
                sent += size_t(n);
            else
                std::this_thread::sleep_for(1ms);
        }
        QVERIFY(sent > 0);
        client.close();
    }
    QTRY_COMPARE_WITH_TIMEOUT(proxy.stats().activeConnections, uint64_t(0), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(echo.stats().activeConnections, uint64_t(0), 5000);

    Socket client = connectTo(proxy.port());
    const std::string data = randomBytes(100000, 7);
    const Exchange result = exchangeThenHalfClose(client, data, 10s);
    QCOMPARE(result.end, EndOfStream::Closed);
    QVERIFY(result.received == data);
}

void TestEmbeddedServers::proxySurvivesUpstreamClosingMidTransfer() {
    auto echo = std::make_unique<EchoServer>();
    QVERIFY(startServer(*echo));
    const uint16_t echoPort = echo->port();
    TcpProxy proxy(proxyConfig(echoPort));
    QVERIFY(startServer(proxy));

    Socket client = connectTo(proxy.port());
    QVERIFY(sendAll(client, "ping"));
    QCOMPARE(receiveExactly(client, 4), std::string("ping"));
    echo->stop(); // the upstream goes away with the connection open
    QElapsedTimer timer;
    timer.start();
    const EndOfStream end = receiveUntilClosed(client);
    QVERIFY(end == EndOfStream::Closed || end == EndOfStream::Reset);
    QVERIFY(timer.elapsed() < 2000);
    // The client's direction stays open (a half-close is not an error) until the client closes.
    QCOMPARE(proxy.stats().activeConnections, uint64_t(1));
    client.close();
    QTRY_COMPARE_WITH_TIMEOUT(proxy.stats().activeConnections, uint64_t(0), 5000);

    // The upstream comes back on the same port; the proxy carries on.
    echo.reset();
    EchoServerConfig config;
    config.port = echoPort;
    EchoServer again(config);
    QVERIFY(startServer(again));
    Socket next = connectTo(proxy.port());
    QVERIFY(sendAll(next, "pong"));
    QCOMPARE(receiveExactly(next, 4), std::string("pong"));
}

void TestEmbeddedServers::proxyClosesClientWhenUpstreamIsDown() {
    ClosedPort nobody;
    TcpProxy proxy(proxyConfig(nobody.port()));
    QVERIFY(startServer(proxy));
    for (int c = 0; c < 3; ++c) {
        Socket client = connectTo(proxy.port());
        QVERIFY(client.isValid());
        sendAll(client, "hello"); // may already fail: the proxy is closing this connection
        QElapsedTimer timer;
        timer.start();
        const EndOfStream end = receiveUntilClosed(client);
        QVERIFY(end == EndOfStream::Closed || end == EndOfStream::Reset);
        QVERIFY(timer.elapsed() < 2000);
    }
    QCOMPARE(proxy.stats().errors, uint64_t(3));
    QCOMPARE(proxy.stats().activeConnections, uint64_t(0));
    QCOMPARE(proxy.stats().requests, uint64_t(0));
}

void TestEmbeddedServers::portInUseFailsWithClearMessage() {
    HttpServer first(httpConfig());
    QVERIFY(startServer(first));
    HttpServerConfig config = httpConfig();
    config.port = first.port();
    HttpServer second(config);
    const auto refused = second.start();
    QVERIFY(!refused);
    QCOMPARE(
        refused.error().toString(),
        QStringLiteral("cannot listen on 127.0.0.1:%1: Address already in use").arg(first.port()));
    QCOMPARE(refused.error().code, loadscope::app::ErrorCode::Io);
    QVERIFY(!second.isRunning());

    // Also against a server of another kind, and the first one is unharmed.
    EchoServerConfig echoConfig;
    echoConfig.port = first.port();
    EchoServer echo(echoConfig);
    QVERIFY(!echo.start());
    Socket client = connectTo(first.port());
    QVERIFY(sendAll(client, "GET / HTTP/1.1\r\n\r\n"));
    QVERIFY(!receiveHttpResponse(client).empty());
}

void TestEmbeddedServers::stopIsIdempotentAndServerRestarts() {
    HttpServer server(httpConfig(5, 3));
    server.stop(); // never started
    QVERIFY(startServer(server));
    QVERIFY(!server.start());               // already running
    Socket idle = connectTo(server.port()); // open connections do not hold stop() up
    QVERIFY(idle.isValid());
    QTRY_COMPARE_WITH_TIMEOUT(server.stats().activeConnections, uint64_t(1), 5000);
    server.stop();
    server.stop();
    QVERIFY(!server.isRunning());
    QCOMPARE(receiveUntilClosed(idle), EndOfStream::Closed);
    QCOMPARE(server.stats().connections, uint64_t(1)); // readable after stop()

    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, "GET / HTTP/1.1\r\n\r\n"));
    QCOMPARE(receiveHttpResponse(client), expectedHead(5, true) + HttpServer::makeDocument(5));
    server.stop();
}

void TestEmbeddedServers::cliServeHttpRunsAndStopsOnSigterm() {
    const QString cli = qEnvironmentVariable("LOADSCOPE_CLI");
    if (cli.isEmpty())
        QSKIP("LOADSCOPE_CLI is not set; run through ctest");
    QProcess process;
    stopWithTest(process);
    process.start(cli, {QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--port"),
                        QStringLiteral("0"), QStringLiteral("--threads"), QStringLiteral("2"),
                        QStringLiteral("--size"), QStringLiteral("321")});
    QVERIFY(process.waitForStarted(5000));
    QByteArray line;
    for (int i = 0; i < 50 && !line.endsWith('\n'); ++i) {
        process.waitForReadyRead(100);
        line += process.readLine();
    }
    QVERIFY2(line.startsWith("listening on 127.0.0.1:"), line.constData());
    bool ok = false;
    const uint16_t port = line.trimmed().mid(int(qstrlen("listening on 127.0.0.1:"))).toUShort(&ok);
    QVERIFY(ok && port != 0);

    {
        Socket client = connectTo(port);
        QVERIFY(sendAll(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
        QCOMPARE(receiveHttpResponse(client),
                 expectedHead(321, true) + HttpServer::makeDocument(321));
    }
    process.terminate(); // SIGTERM
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(process.readAllStandardOutput(), QByteArray()); // the one line, nothing more
    const QByteArray summary = process.readAllStandardError();
    QVERIFY2(summary.contains("stopped after 1 connections, 1 responses"), summary.constData());
}

void TestEmbeddedServers::cliServeReportsPortInUse() {
    const QString cli = qEnvironmentVariable("LOADSCOPE_CLI");
    if (cli.isEmpty())
        QSKIP("LOADSCOPE_CLI is not set; run through ctest");
    // A bare listening socket rather than a server: no threads of ours may run across the fork,
    // which ThreadSanitizer cannot follow.
    RawListener taken;
    QProcess process;
    stopWithTest(process);
    process.start(cli, {QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--port"),
                        QString::number(taken.port())});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 2);
    QCOMPARE(process.readAllStandardError(),
             QByteArray("loadscope-cli serve: cannot listen on 127.0.0.1:") +
                 QByteArray::number(taken.port()) + QByteArray(": Address already in use\n"));
    QCOMPARE(process.readAllStandardOutput(), QByteArray());
}

QTEST_GUILESS_MAIN(TestEmbeddedServers)
#include "tst_embedded_servers.moc"
