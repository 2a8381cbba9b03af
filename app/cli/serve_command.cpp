// loadscope-cli serve: runs one of the embedded target servers until SIGINT or SIGTERM.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/servers/echo_server.h"
#include "app/servers/http_server.h"
#include "app/servers/sink_server.h"
#include "app/servers/tcp_proxy.h"
#include "app/session/target_rules.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <pthread.h>

namespace loadscope::cli {

namespace {

const char* const kServeUsage =
    "Usage: loadscope-cli serve KIND [options]\n"
    "\n"
    "Runs an embedded target server on 127.0.0.1 until SIGINT or SIGTERM.\n"
    "\n"
    "Kinds:\n"
    "  http    keep-alive HTTP/1.1 (and HTTP/2 with --h2), one static document (--size)\n"
    "  echo    request/response peer for tcp-rr (--request-size, --response-size, --tls)\n"
    "  sink    reads and discards, the peer for tcp-stream\n"
    "  proxy   userland TCP relay to --to HOST:PORT\n"
    "\n"
    "Once listening it prints one line 'listening on HOST:PORT' on stdout; when stopped it\n"
    "prints a summary on stderr. Exit status: 0 after a signal, 2 for bad arguments or when\n"
    "the address cannot be bound (port in use).\n"
    "'loadscope-cli serve KIND --help' describes a kind's options.\n";

struct ServeSetup {
    std::unique_ptr<app::TcpServer> server;
    QString summaryRequests; // what stats().requests counts for this kind
    QString summaryErrors;   // and stats().errors
    bool selfSigned = false; // http or echo --tls without --cert
};

void addCommonOptions(QCommandLineParser& parser) {
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("port"),
         QStringLiteral("Port to listen on; 0 (the default) picks a free one, printed at start."),
         QStringLiteral("P"), QStringLiteral("0")},
        {QStringLiteral("host"), QStringLiteral("Address to listen on (default 127.0.0.1)."),
         QStringLiteral("HOST"), QStringLiteral("127.0.0.1")},
        {QStringLiteral("threads"),
         QStringLiteral("Event loops, one thread each (default: one per core)."),
         QStringLiteral("N")},
        {QStringLiteral("header-timeout"),
         QStringLiteral("Close a connection that has not sent a whole request head this long\n"
                        "after it connected or began the head (http; echo: any byte);\n"
                        "0 disables (default 10)."),
         QStringLiteral("S"), QStringLiteral("10")},
        {QStringLiteral("idle-timeout"),
         QStringLiteral("Close a connection on which nothing moved this long; 0 disables\n"
                        "(default 60)."),
         QStringLiteral("S"), QStringLiteral("60")},
    });
}

app::Result<std::chrono::milliseconds> timeoutOption(const QCommandLineParser& parser,
                                                     const char* name) {
    const QString option = QLatin1String("--") + QLatin1String(name);
    const auto seconds = parseSeconds(option, parser.value(QLatin1String(name)));
    if (!seconds)
        return seconds.error();
    if (*seconds > 86400.0)
        return app::invalidInput(QStringLiteral("%1 is at most a day (86400)").arg(option));
    const auto ms = std::chrono::milliseconds(std::llround(*seconds * 1000.0));
    if (*seconds > 0 && ms.count() == 0)
        return app::invalidInput(QStringLiteral("%1 is at least 1ms, or 0 to disable").arg(option));
    return ms;
}

// --tls, --cert, --key: of http (HTTPS) and echo (raw TLS).
void addTlsOptions(QCommandLineParser& parser, const QString& what) {
    parser.addOptions({
        {QStringLiteral("tls"),
         QStringLiteral("%1 (TLS 1.2 and 1.3); without --cert, with a self-signed\n"
                        "certificate for 127.0.0.1 and localhost made at start.")
             .arg(what)},
        {QStringLiteral("cert"), QStringLiteral("With --tls: the certificate chain (PEM)."),
         QStringLiteral("FILE")},
        {QStringLiteral("key"),
         QStringLiteral("With --tls: the certificate's key (PEM; default: in --cert)."),
         QStringLiteral("FILE")},
    });
}

app::Result<void> readTlsOptions(const QCommandLineParser& parser, app::ServerTlsConfig& config,
                                 ServeSetup& setup) {
    config.tls = parser.isSet(QStringLiteral("tls"));
    config.tlsCertFile = parser.value(QStringLiteral("cert")).toStdString();
    config.tlsKeyFile = parser.value(QStringLiteral("key")).toStdString();
    if (!config.tls &&
        (parser.isSet(QStringLiteral("cert")) || parser.isSet(QStringLiteral("key"))))
        return app::invalidInput(QStringLiteral("--cert and --key need --tls"));
    if (config.tlsCertFile.empty() && !config.tlsKeyFile.empty())
        return app::invalidInput(QStringLiteral("--key needs its certificate (--cert)"));
    setup.selfSigned = config.tls && config.tlsCertFile.empty();
    return {};
}

void addKindOptions(QCommandLineParser& parser, const QString& kind) {
    addCommonOptions(parser);
    if (kind == QLatin1String("http")) {
        parser.setApplicationDescription(QStringLiteral(
            "Keep-alive HTTP/1.1 server: every request gets the same static HTML document."));
        parser.addOptions({
            {QStringLiteral("size"), QStringLiteral("Document size in bytes (default 4897)."),
             QStringLiteral("BYTES"), QStringLiteral("4897")},
            {QStringLiteral("h2"),
             QStringLiteral("HTTP/2 as well: cleartext h2c with prior knowledge (HTTP/1.1 for\n"
                            "clients that do not open with the HTTP/2 preface); with --tls,\n"
                            "ALPN offers h2 and http/1.1.")},
        });
        addTlsOptions(parser, QStringLiteral("HTTPS"));
    } else if (kind == QLatin1String("echo")) {
        parser.setApplicationDescription(QStringLiteral(
            "Request/response peer for 'loadscope-cli tcp-rr -r REQ,RESP': answers RESP bytes\n"
            "for every REQ bytes received. --request-size and --response-size must match the\n"
            "client's -r; when they are equal the received bytes are sent back unchanged."));
        parser.addOptions({
            {QStringLiteral("request-size"),
             QStringLiteral("Bytes per request, the client's REQ (default 1)."),
             QStringLiteral("R"), QStringLiteral("1")},
            {QStringLiteral("response-size"),
             QStringLiteral("Bytes per response, the client's RESP (default 1)."),
             QStringLiteral("S"), QStringLiteral("1")},
        });
        addTlsOptions(parser, QStringLiteral("Raw TLS, for tcp-rr --tls"));
    } else if (kind == QLatin1String("sink")) {
        parser.setApplicationDescription(
            QStringLiteral("Reads and discards everything, the peer for 'loadscope-cli "
                           "tcp-stream'; the summary counts the bytes."));
    } else {
        parser.setApplicationDescription(QStringLiteral(
            "Userland TCP relay, as a container engine's published-port proxy: every client\n"
            "gets its own connection to the upstream. An unreachable upstream closes the\n"
            "client's connection and is logged on stderr."));
        parser.addOption({QStringLiteral("to"), QStringLiteral("Upstream to relay to."),
                          QStringLiteral("HOST:PORT")});
    }
}

app::Result<uint64_t> countOption(const QCommandLineParser& parser, const char* name,
                                  uint64_t minimum, uint64_t maximum) {
    const QString option = QLatin1String("--") + QLatin1String(name);
    return parseCount(option, parser.value(QLatin1String(name)), minimum, maximum);
}

app::Result<ServeSetup> buildServer(const QCommandLineParser& parser, const QString& kind) {
    if (!parser.positionalArguments().isEmpty())
        return app::invalidInput(QStringLiteral("unexpected argument '%1' (see --help)")
                                     .arg(parser.positionalArguments().constFirst()));
    const auto port = countOption(parser, "port", 0, 65535);
    if (!port)
        return port.error();
    uint64_t threadCount = app::threadCount(0);
    if (parser.isSet(QStringLiteral("threads"))) {
        const auto threads = countOption(parser, "threads", 1, 1024);
        if (!threads)
            return threads.error();
        threadCount = *threads;
    }
    const auto headerTimeout = timeoutOption(parser, "header-timeout");
    if (!headerTimeout)
        return headerTimeout.error();
    const auto idleTimeout = timeoutOption(parser, "idle-timeout");
    if (!idleTimeout)
        return idleTimeout.error();
    const auto fillBase = [&](app::ServerConfig& config) {
        config.host = parser.value(QStringLiteral("host")).toStdString();
        config.port = uint16_t(*port);
        config.threads = uint32_t(threadCount);
        config.headerTimeout = *headerTimeout;
        config.idleTimeout = *idleTimeout;
    };

    ServeSetup setup;
    if (kind == QLatin1String("http")) {
        const auto size = countOption(parser, "size", 0, app::HttpServer::kMaxDocumentSize);
        if (!size)
            return size.error();
        app::HttpServerConfig config;
        fillBase(config);
        config.documentSize = size_t(*size);
        config.http2 = parser.isSet(QStringLiteral("h2"));
        if (auto tls = readTlsOptions(parser, config, setup); !tls)
            return tls.error();
        setup.server = std::make_unique<app::HttpServer>(config);
        setup.summaryRequests = QStringLiteral("responses");
        setup.summaryErrors = QStringLiteral("bad requests");
    } else if (kind == QLatin1String("echo")) {
        const auto request =
            countOption(parser, "request-size", 1, app::EchoServer::kMaxMessageSize);
        if (!request)
            return request.error();
        const auto response =
            countOption(parser, "response-size", 1, app::EchoServer::kMaxMessageSize);
        if (!response)
            return response.error();
        app::EchoServerConfig config;
        fillBase(config);
        config.requestSize = size_t(*request);
        config.responseSize = size_t(*response);
        if (auto tls = readTlsOptions(parser, config, setup); !tls)
            return tls.error();
        setup.server = std::make_unique<app::EchoServer>(config);
        setup.summaryRequests = QStringLiteral("responses");
        setup.summaryErrors = config.tls ? QStringLiteral("accept and handshake errors")
                                         : QStringLiteral("accept errors");
    } else if (kind == QLatin1String("sink")) {
        app::ServerConfig config;
        fillBase(config);
        setup.server = std::make_unique<app::SinkServer>(config);
        setup.summaryErrors = QStringLiteral("accept errors");
    } else {
        if (!parser.isSet(QStringLiteral("to")))
            return app::invalidInput(QStringLiteral("--to HOST:PORT is required"));
        const auto upstream = app::parseEndpoint(parser.value(QStringLiteral("to")));
        if (!upstream)
            return upstream.error();
        app::TcpProxyConfig config;
        fillBase(config);
        config.upstreamHost = upstream->host.toStdString();
        config.upstreamPort = upstream->port;
        setup.server = std::make_unique<app::TcpProxy>(config);
        setup.summaryRequests = QStringLiteral("upstream connections");
        setup.summaryErrors = QStringLiteral("upstream failures");
    }
    return setup;
}

void printSummary(const QString& command, const ServeSetup& setup) {
    const app::ServerStats stats = setup.server->stats();
    QString line = QStringLiteral("stopped after %1 connections").arg(stats.connections);
    if (!setup.summaryRequests.isEmpty())
        line += QStringLiteral(", %1 %2").arg(stats.requests).arg(setup.summaryRequests);
    line += QStringLiteral(", %1 bytes received, %2 bytes sent")
                .arg(stats.bytesReceived)
                .arg(stats.bytesSent);
    if (stats.errors > 0)
        line += QStringLiteral(", %1 %2").arg(stats.errors).arg(setup.summaryErrors);
    std::fprintf(stderr, "%s: %s\n", qPrintable(command), qPrintable(line));
}

} // namespace

QStringList serveKinds() {
    return {QStringLiteral("http"), QStringLiteral("echo"), QStringLiteral("sink"),
            QStringLiteral("proxy")};
}

int runServeCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    const QString kind = arguments.value(1);
    if (kind == QLatin1String("--help") || kind == QLatin1String("-h")) {
        std::fputs(kServeUsage, stdout);
        return ExitOk;
    }
    if (!serveKinds().contains(kind)) {
        printError(command, kind.isEmpty() ? QStringLiteral("which server? http, echo, sink or "
                                                            "proxy (see --help)")
                                           : QStringLiteral("unknown server '%1': expected http, "
                                                            "echo, sink or proxy")
                                                 .arg(kind));
        return ExitUsage;
    }
    QStringList rest = arguments;
    rest.removeAt(1);
    rest[0] = command + QLatin1Char(' ') + kind;

    QCommandLineParser parser;
    addKindOptions(parser, kind);
    if (rest.contains(QStringLiteral("--help")) || rest.contains(QStringLiteral("-h"))) {
        // Qt's usage line names the executable only; the kind belongs in it too.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
                     QStringLiteral("Usage: loadscope-cli serve %1 [options]").arg(kind));
        std::fputs(qPrintable(help), stdout);
        return ExitOk;
    }
    if (const auto exit = parseOrExit(parser, rest))
        return *exit;
    app::Result<ServeSetup> setup = buildServer(parser, kind);
    if (!setup) {
        printError(command, setup.error().message);
        return ExitUsage;
    }
    // As many clients as the hard limit allows; fewer are no reason to refuse.
    static_cast<void>(ensureFileLimit(65536));

    // Blocked before any server thread exists, so that every thread inherits the mask and the
    // signals can only be taken here, by sigwait().
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    if (const auto started = setup->server->start(); !started) {
        printError(command, started.error().toString());
        return ExitUsage;
    }
    std::printf("listening on %s\n", setup->server->address().c_str());
    std::fflush(stdout);
    if (setup->selfSigned)
        std::fprintf(stderr,
                     "%s with a self-signed certificate for 127.0.0.1 and localhost: clients "
                     "need --insecure\n",
                     kind == QLatin1String("http") ? "https" : "TLS");

    int received = 0;
    sigwait(&stopSignals, &received);
    setup->server->stop();
    printSummary(command + QLatin1Char(' ') + kind, *setup);
    return ExitOk;
}

} // namespace loadscope::cli
