// loadscope-cli udp-rr and udp-stream as a user runs them, against the embedded UDP echo,
// sink and relay run here in-process, so that their own datagram counters are the truth the
// client's figures are held to; serve's UDP servers and their refusals, and the lab's; bad
// arguments.
#include "app/servers/udp_echo_server.h"
#include "app/servers/udp_proxy.h"
#include "app/servers/udp_sink_server.h"
#include "cli_process.h"

#include <QFile>
#include <QTest>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using loadscope::app::ServerConfig;
using loadscope::app::UdpEchoServer;
using loadscope::app::UdpEchoServerConfig;
using loadscope::app::UdpProxy;
using loadscope::app::UdpProxyConfig;
using loadscope::app::UdpServerStats;
using loadscope::app::UdpSinkServer;
using loadscope::testing::CliOutcome;
using loadscope::testing::integer;
using loadscope::testing::runCli;
using loadscope::testing::runCliProcess;

namespace {

QString at(uint16_t port) {
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

std::unique_ptr<UdpEchoServer> startEcho(std::optional<size_t> responseSize, uint32_t threads) {
    UdpEchoServerConfig config;
    config.threads = threads;
    config.responseSize = responseSize;
    auto server = std::make_unique<UdpEchoServer>(config);
    if (const auto started = server->start(); !started)
        qWarning("udp echo: %s", qPrintable(started.error().toString()));
    return server;
}

// A UDP port that is bound here (so no one else holds it) and stays bound while it lives.
struct HeldPort {
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    uint16_t port = 0;
    HeldPort() {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        socklen_t length = sizeof address;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
    }
    ~HeldPort() { ::close(fd); }
};

} // namespace

class TestUdpCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
                 "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void echoCountsEveryDatagramSent_data() {
        QTest::addColumn<QString>("sizes");
        QTest::addColumn<int>("request");
        QTest::addColumn<int>("response");
        QTest::addColumn<int>("sockets");
        QTest::addColumn<int>("serverThreads");
        QTest::newRow("1,1 one socket") << QStringLiteral("1,1") << 1 << 1 << 1 << 1;
        QTest::newRow("64,1024 four sockets, two loops")
            << QStringLiteral("64,1024") << 64 << 1024 << 4 << 2;
        QTest::newRow("1472,8") << QStringLiteral("1472,8") << 1472 << 8 << 2 << 1;
    }
    void echoCountsEveryDatagramSent() {
        QFETCH(QString, sizes);
        QFETCH(int, request);
        QFETCH(int, response);
        QFETCH(int, sockets);
        QFETCH(int, serverThreads);
        auto echo = startEcho(size_t(response), uint32_t(serverThreads));
        QVERIFY(echo->isRunning());
        constexpr int kTransactions = 20000;
        const CliOutcome ours =
            runCli({QStringLiteral("udp-rr"), QStringLiteral("-r"), sizes, QStringLiteral("-c"),
                    QString::number(sockets), QStringLiteral("-n"), QString::number(kTransactions),
                    QStringLiteral("--json"), QStringLiteral("-"), at(echo->port())});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "complete"), kTransactions);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(json.value(QStringLiteral("test")).toString(), QStringLiteral("UDP_RR"));
        // The server's own count: every datagram sent arrived once, and was answered once.
        const UdpServerStats stats = echo->stats();
        QCOMPARE(stats.datagramsReceived, uint64_t(kTransactions));
        QCOMPARE(stats.datagramsSent, uint64_t(kTransactions));
        QCOMPARE(stats.bytesReceived, uint64_t(kTransactions) * uint64_t(request));
        QCOMPARE(integer(json, "bytes_sent"), qint64(stats.bytesReceived));
        QCOMPARE(integer(json, "bytes_total"), qint64(stats.bytesSent));
        QCOMPARE(integer(json, "connections_opened"), sockets);
    }

    void echoWithoutResponseSizeMirrors() {
        auto echo = startEcho(std::nullopt, 1);
        const CliOutcome ours =
            runCli({QStringLiteral("udp-rr"), QStringLiteral("-r"), QStringLiteral("100,100"),
                    QStringLiteral("-n"), QStringLiteral("500"), QStringLiteral("--json"),
                    QStringLiteral("-"), at(echo->port())});
        QCOMPARE(ours.exitCode, 0);
        QCOMPARE(integer(ours.json(), "failed"), 0);
        QCOMPARE(echo->stats().bytesSent, uint64_t(500 * 100));
        // An answer size the echo does not send is counted, request by request.
        const CliOutcome wrong =
            runCli({QStringLiteral("udp-rr"), QStringLiteral("-r"), QStringLiteral("100,50"),
                    QStringLiteral("-n"), QStringLiteral("50"), QStringLiteral("--json"),
                    QStringLiteral("-"), at(echo->port())});
        QCOMPARE(wrong.exitCode, 0);
        QCOMPARE(integer(wrong.json(), "failed_exceptions"), 50);
    }

    void sinkSaysWhatItReceived() {
        ServerConfig config;
        config.threads = 1;
        UdpSinkServer sink(config);
        QVERIFY(sink.start());
        const CliOutcome ours =
            runCli({QStringLiteral("udp-stream"), QStringLiteral("-l"), QStringLiteral("0.3"),
                    QStringLiteral("-m"), QStringLiteral("1000"), QStringLiteral("--json"),
                    QStringLiteral("-"), at(sink.port())});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        sink.stop();
        const UdpServerStats stats = sink.stats();
        // Without a warm-up, what the sink read is the stream's messages and the queries: the
        // start's, and the end's until one was answered.
        QCOMPARE(integer(json, "sink_datagrams"),
                 qint64(stats.datagramsReceived - stats.countQueries));
        QCOMPARE(integer(json, "sink_bytes"),
                 qint64(stats.bytesReceived - stats.countQueries * 48));
        QVERIFY(integer(json, "datagrams_sent") >= integer(json, "sink_datagrams"));
        QCOMPARE(integer(json, "bytes_sent"), integer(json, "datagrams_sent") * 1000);
        QVERIFY(json.contains(QStringLiteral("delivered_mbit_s")));
        QVERIFY(json.contains(QStringLiteral("datagram_loss_percent")));
    }

    void relayCarriesEveryDatagram() {
        auto echo = startEcho(size_t(32), 1);
        UdpProxyConfig config;
        config.threads = 1;
        config.upstreamPort = echo->port();
        UdpProxy proxy(config);
        QVERIFY(proxy.start());
        const CliOutcome ours =
            runCli({QStringLiteral("udp-rr"), QStringLiteral("-r"), QStringLiteral("32,32"),
                    QStringLiteral("-c"), QStringLiteral("3"), QStringLiteral("-n"),
                    QStringLiteral("3000"), QStringLiteral("--json"), QStringLiteral("-"),
                    at(proxy.port())});
        QCOMPARE(ours.exitCode, 0);
        QCOMPARE(integer(ours.json(), "failed"), 0);
        QCOMPARE(proxy.stats().datagramsReceived, uint64_t(3000));
        QCOMPARE(proxy.stats().datagramsSent, uint64_t(3000));
        QCOMPARE(echo->stats().datagramsReceived, uint64_t(3000));
    }

    void refusedPortIsUnreachable() {
        uint16_t port = 0;
        {
            HeldPort held;
            port = held.port;
        }
        const CliOutcome ours = runCli({QStringLiteral("udp-rr"), QStringLiteral("-q"),
                                        QStringLiteral("-l"), QStringLiteral("5"), at(port)});
        QCOMPARE(ours.exitCode, 3);
        QCOMPARE(ours.errorLines().size(), 1);
        QVERIFY2(ours.err.contains("refused"), ours.err.constData());
    }

    void reportSaysWhatUdpCounts() {
        auto echo = startEcho(size_t(8), 1);
        const CliOutcome ours =
            runCli({QStringLiteral("udp-rr"), QStringLiteral("-r"), QStringLiteral("8,8"),
                    QStringLiteral("-n"), QStringLiteral("200"), at(echo->port())});
        QCOMPARE(ours.exitCode, 0);
        for (const char* line :
             {"UDP_RR test to", "Failed: 0", "Answers completing no request: 0 duplicate, 0 late",
              "by the sequence numbers", "Sockets opened: 1"})
            QVERIFY2(ours.out.contains(line), ours.out.constData());
    }

    void badArgumentsAreOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("-r beyond a datagram")
            << QStringList{QStringLiteral("udp-rr"), QStringLiteral("-r"),
                           QStringLiteral("65508,1"), QStringLiteral("127.0.0.1:9")}
            << QStringLiteral("-r wants REQUEST,RESPONSE sizes in bytes from 1 to 65507");
        QTest::newRow("-b too deep")
            << QStringList{QStringLiteral("udp-rr"), QStringLiteral("-b"), QStringLiteral("1000"),
                           QStringLiteral("127.0.0.1:9")}
            << QStringLiteral("-b");
        QTest::newRow("-m of 0") << QStringList{QStringLiteral("udp-stream"), QStringLiteral("-m"),
                                                QStringLiteral("0"), QStringLiteral("127.0.0.1:9")}
                                 << QStringLiteral("-m");
        QTest::newRow("stream at a rate")
            << QStringList{QStringLiteral("udp-stream"), QStringLiteral("-R"),
                           QStringLiteral("100"), QStringLiteral("127.0.0.1:9")}
            << QStringLiteral("rate");
    }
    void badArgumentsAreOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const CliOutcome ours = runCli(arguments);
        const QString problem = ours.refusalProblem(expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void serveRefusesInOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("request size over UDP")
            << QStringList{QStringLiteral("echo"), QStringLiteral("--udp"),
                           QStringLiteral("--request-size"), QStringLiteral("10")}
            << QStringLiteral("--request-size has no meaning with --udp");
        QTest::newRow("TLS over UDP")
            << QStringList{QStringLiteral("echo"), QStringLiteral("--udp"), QStringLiteral("--tls")}
            << QStringLiteral("--tls has no meaning with --udp");
        QTest::newRow("an answer beyond a datagram")
            << QStringList{QStringLiteral("echo"), QStringLiteral("--udp"),
                           QStringLiteral("--response-size"), QStringLiteral("70000")}
            << QStringLiteral("--response-size");
    }
    void serveRefusesInOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const CliOutcome serve =
            runCliProcess(QStringList{QStringLiteral("serve")} << arguments, 10000);
        const QString problem = serve.refusalProblem(expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The lab's udp-echo and udp-sink take serve's options in serve's ranges, by the one rule
    // a session's lab targets are held to too: each refused in one line, nothing built.
    void labRefusesUdpServerOptions_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("expected");
        QTest::newRow("an echo answer beyond a datagram")
            << QStringLiteral("udp-echo") << QStringLiteral("response-size=65508")
            << QStringLiteral("response-size=65508: expected a whole number from 1 to 65507");
        // A sink has no options of its own; only the lab's number of backend pods.
        QTest::newRow("a sink takes no size")
            << QStringLiteral("udp-sink") << QStringLiteral("size=1")
            << QStringLiteral("size: udp-sink takes backends");
    }
    void labRefusesUdpServerOptions() {
        QFETCH(QString, server);
        QFETCH(QString, option);
        QFETCH(QString, expected);
        const CliOutcome lab = runCliProcess(
            {QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
             QStringLiteral("host"), QStringLiteral("--server"), server,
             QStringLiteral("--server-opt"), option, QStringLiteral("--"), QStringLiteral("true")},
            10000);
        const QString problem = lab.refusalProblem(expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void portInUseIsRefused() {
        HeldPort held;
        for (const QString& kind : {QStringLiteral("echo"), QStringLiteral("sink")}) {
            const CliOutcome serve =
                runCliProcess({QStringLiteral("serve"), kind, QStringLiteral("--udp"),
                               QStringLiteral("--port"), QString::number(held.port)},
                              10000);
            const QString problem = serve.refusalProblem(QStringLiteral("cannot bind UDP"));
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        // One of our own in the way is in the way too, SO_REUSEPORT or not.
        auto first = startEcho(std::nullopt, 2);
        UdpEchoServerConfig config;
        config.port = first->port();
        UdpEchoServer second(config);
        QVERIFY(!second.start());
    }
};

QTEST_GUILESS_MAIN(TestUdpCli)
#include "tst_udp_cli.moc"
