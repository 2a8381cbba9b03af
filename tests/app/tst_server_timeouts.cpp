// The embedded servers against slow and silent clients (header and idle
// timeouts, slowloris at the file limit), and the real `loadscope-cli serve`
// executable: its signals, its port and its refusals.
#include "app/servers/echo_server.h"
#include "app/servers/http_server.h"
#include "blocking_client.h"
#include "embedded_server_support.h"
#include "stop_with_test.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <chrono>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace loadscope::app;
using namespace loadscope::testing;
using namespace std::chrono_literals;

namespace {

// The port a started `serve` prints in its one line; 0 when it does not within five seconds.
uint16_t listeningPort(QProcess& process) {
    if (!process.waitForStarted(5000))
        return 0;
    QByteArray line;
    for (int i = 0; i < 50 && !line.endsWith('\n'); ++i) {
        process.waitForReadyRead(100);
        line += process.readLine();
    }
    const QByteArray prefix("listening on 127.0.0.1:");
    if (!line.startsWith(prefix)) {
        qWarning("serve printed '%s'", line.constData());
        return 0;
    }
    return line.trimmed().mid(prefix.size()).toUShort();
}

// A request head cut short, as slowloris sends it, and then nothing.
constexpr std::string_view kPartialHead = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n";

// A 5-byte document, with one of the timeouts (0: off).
HttpServerConfig timeoutConfig(std::chrono::milliseconds header, std::chrono::milliseconds idle) {
    HttpServerConfig config = httpConfig(5);
    config.headerTimeout = header;
    config.idleTimeout = idle;
    return config;
}

} // namespace

class TestServerTimeouts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cliServeHttpRunsAndStopsOnSigterm();
    void cliServeReportsPortInUse();
    void partialHeadClosedAfterHeaderTimeout();
    void echoClientThatSendsNothingIsClosed();
    void idleConnectionClosedAfterIdleTimeout();
    void cliServeAcceptsAtFileLimitUnderSlowloris();
    void cliServeRefusesBadTimeout();
};

void TestServerTimeouts::cliServeHttpRunsAndStopsOnSigterm() {
    const QString cli = qEnvironmentVariable("LOADSCOPE_CLI");
    if (cli.isEmpty())
        QSKIP("LOADSCOPE_CLI is not set; run through ctest");
    QProcess process;
    stopWithTest(process);
    process.start(cli, {QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--port"),
                        QStringLiteral("0"), QStringLiteral("--threads"), QStringLiteral("2"),
                        QStringLiteral("--size"), QStringLiteral("321")});
    const uint16_t port = listeningPort(process);
    QVERIFY(port != 0);

    {
        Socket client = connectTo(port);
        QVERIFY(sendAll(client, kGetRequest));
        QCOMPARE(receiveHttpResponse(client), expectedResponse(321));
    }
    process.terminate(); // SIGTERM
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(process.readAllStandardOutput(), QByteArray()); // the one line, nothing more
    const QByteArray summary = process.readAllStandardError();
    QVERIFY2(summary.contains("stopped after 1 connections, 1 responses"), summary.constData());
}

void TestServerTimeouts::cliServeReportsPortInUse() {
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

void TestServerTimeouts::partialHeadClosedAfterHeaderTimeout() {
    HttpServer server(timeoutConfig(300ms, 0ms));
    QVERIFY(startServer(server));
    Socket slow = connectTo(server.port());
    Socket busy = connectTo(server.port());
    QVERIFY(sendAll(slow, kPartialHead));
    QElapsedTimer clock;
    clock.start();
    // Whole requests, each within the timeout, for longer than it: a head that completes clears it.
    for (int i = 0; i < 8; ++i) {
        QVERIFY(sendAll(busy, kGetRequest));
        QCOMPARE(receiveHttpResponse(busy), expectedResponse(5));
        std::this_thread::sleep_for(100ms);
    }
    QCOMPARE(receiveUntilClosed(slow), EndOfStream::Closed);
    QVERIFY2(clock.elapsed() >= 250, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(sendAll(busy, kGetRequest));
    QCOMPARE(receiveHttpResponse(busy), expectedResponse(5));
    QTRY_COMPARE_WITH_TIMEOUT(server.stats().activeConnections, uint64_t(1), 5000);
}

void TestServerTimeouts::echoClientThatSendsNothingIsClosed() {
    EchoServerConfig config;
    config.requestSize = 4;
    config.responseSize = 2; // not mirrored: nothing comes back before a whole request
    config.headerTimeout = 300ms;
    config.idleTimeout = 0ms;
    EchoServer server(config);
    QVERIFY(startServer(server));
    Socket silent = connectTo(server.port());
    Socket talking = connectTo(server.port());
    QVERIFY(sendAll(talking, "ab")); // half a request: the client is there, the rest may be slow
    QCOMPARE(receiveUntilClosed(silent), EndOfStream::Closed);
    QVERIFY(staysQuiet(talking, 500ms));
    QVERIFY(sendAll(talking, "cd"));
    QCOMPARE(receiveExactly(talking, 2).size(), size_t(2));
}

void TestServerTimeouts::idleConnectionClosedAfterIdleTimeout() {
    HttpServer server(timeoutConfig(0ms, 300ms));
    QVERIFY(startServer(server));
    Socket client = connectTo(server.port());
    QVERIFY(sendAll(client, kGetRequest));
    QCOMPARE(receiveHttpResponse(client), expectedResponse(5));
    QElapsedTimer clock;
    clock.start();
    QCOMPARE(receiveUntilClosed(client), EndOfStream::Closed);
    QVERIFY2(clock.elapsed() >= 250, qPrintable(QString::number(clock.elapsed())));
}

void TestServerTimeouts::cliServeAcceptsAtFileLimitUnderSlowloris() {
    const QString cli = qEnvironmentVariable("LOADSCOPE_CLI");
    if (cli.isEmpty())
        QSKIP("LOADSCOPE_CLI is not set; run through ctest");
    constexpr rlim_t kFileLimit = 48;
    QProcess process;
    stopWithTest(process);
    process.setChildProcessModifier([] {
        const rlimit limit{kFileLimit, kFileLimit}; // the hard limit too: serve raises the soft one
        ::setrlimit(RLIMIT_NOFILE, &limit);
    });
    process.start(cli, {QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--port"),
                        QStringLiteral("0"), QStringLiteral("--threads"), QStringLiteral("1"),
                        QStringLiteral("--size"), QStringLiteral("7")});
    const uint16_t port = listeningPort(process);
    QVERIFY(port != 0);

    // More slow clients than the server has descriptors: it runs out while they wait.
    std::vector<Socket> slow;
    for (rlim_t i = 0; i < kFileLimit + 8; ++i) {
        slow.push_back(connectTo(port));
        QVERIFY(slow.back().isValid());
        // May fail: beyond the limit the server closes a newcomer at once while nobody has
        // waited long enough to make room.
        static_cast<void>(sendAll(slow.back(), kPartialHead));
    }
    std::this_thread::sleep_for(400ms); // the slow ones have waited long enough to be closed
    const auto closedByServer = [&slow] {
        size_t closed = 0;
        char byte = 0;
        for (const Socket& socket : slow) {
            // A reset (the partial head unread when the server closed) reads as 0 once reported.
            const ssize_t n = ::recv(socket.fd(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            closed += n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ? 1 : 0;
        }
        return closed;
    };
    // Those beyond the limit that came while nobody had waited long were closed at once.
    const size_t closedBefore = closedByServer();

    Socket client = connectTo(port);
    QVERIFY(client.isValid());
    QVERIFY(sendAll(client, kGetRequest));
    QCOMPARE(receiveHttpResponse(client), expectedResponse(7));
    // Room was made by closing one slow client.
    QTRY_COMPARE_WITH_TIMEOUT(closedByServer(), closedBefore + 1, 5000);

    process.terminate();
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 0);
}

void TestServerTimeouts::cliServeRefusesBadTimeout() {
    const QString cli = qEnvironmentVariable("LOADSCOPE_CLI");
    if (cli.isEmpty())
        QSKIP("LOADSCOPE_CLI is not set; run through ctest");
    QProcess process;
    stopWithTest(process);
    process.start(cli, {QStringLiteral("serve"), QStringLiteral("echo"),
                        QStringLiteral("--idle-timeout"), QStringLiteral("soon")});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 2);
    const QByteArray error = process.readAllStandardError();
    QVERIFY2(error.contains("--idle-timeout") && error.count('\n') == 1, error.constData());
    QCOMPARE(process.readAllStandardOutput(), QByteArray());
}

QTEST_GUILESS_MAIN(TestServerTimeouts)
#include "tst_server_timeouts.moc"
