// The echo and sink servers and the proxy, driven in-process by blocking
// client sockets. Slow clients and `loadscope-cli serve` as a process are
// tst_server_timeouts'.
#include "app/servers/echo_server.h"
#include "app/servers/http_server.h"
#include "app/servers/sink_server.h"
#include "app/servers/tcp_proxy.h"
#include "blocking_client.h"
#include "embedded_server_support.h"
#include "stop_with_test.h"

#include <QElapsedTimer>
#include <QTest>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace std::chrono_literals;

class TestEmbeddedServers : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
};

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

QTEST_GUILESS_MAIN(TestEmbeddedServers)
#include "tst_embedded_servers.moc"
