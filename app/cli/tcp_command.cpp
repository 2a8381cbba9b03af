// loadscope-cli tcp-rr and tcp-stream: netperf's TCP_RR / TCP_CRR and
// TCP_STREAM workloads with netperf's option letters, netperf's layout.
#include "app/cli/capacity_one_shot.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/netperf_command_parts.h"
#include "app/cli/one_shot.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/netperf_report.h"
#include "app/session/target_rules.h"
#include "engine/tcp_protocol.h"

#include <QRegularExpression>
#include <cstdio>
#include <sys/socket.h>
#include <tuple>
#include <unistd.h>

namespace loadscope::cli {

using app::invalidInput;
using app::Result;

namespace netperf {

void addConnectionOptions(QCommandLineParser& parser) {
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("HOST:PORT"),
                                 QStringLiteral("the peer, e.g. 127.0.0.1:12865"));
    parser.addOption({QStringLiteral("c"), QStringLiteral("Connections open at once (default 1)."),
                      QStringLiteral("connections")});
}

void readDefaultSocketSizes(int family, app::NetperfRunSetup& setup) {
    const int type = setup.test.startsWith(QLatin1String("UDP")) ? SOCK_DGRAM : SOCK_STREAM;
    const int fd = ::socket(family, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    socklen_t length = sizeof setup.socketSendBytes;
    ::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &setup.socketSendBytes, &length);
    length = sizeof setup.socketRecvBytes;
    ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &setup.socketRecvBytes, &length);
    ::close(fd);
}

Result<Invocation> readCommon(const QCommandLineParser& parser, app::TargetProtocol protocol) {
    if (parser.positionalArguments().size() != 1)
        return invalidInput(QStringLiteral("expected exactly one HOST:PORT (see --help)"));
    app::Target target;
    target.name = app::targetProtocolId(protocol);
    target.protocol = protocol;
    target.address = parser.positionalArguments().constFirst();
    if (auto endpoint = app::parseEndpoint(target.address); !endpoint)
        return endpoint.error();
    uint64_t connections = 1;
    if (parser.isSet(QStringLiteral("c"))) {
        const auto c =
            parseCount(QStringLiteral("-c"), parser.value(QStringLiteral("c")), 1, kMaxConnections);
        if (!c)
            return c.error();
        connections = *c;
    }
    Invocation invocation;
    invocation.setup.server = target.address;
    invocation.shot = oneShotOf(std::move(target), int(connections));
    return invocation;
}

Result<void> readLength(const QCommandLineParser& parser, app::SweepPlan& plan,
                        std::optional<uint64_t> transactions) {
    double seconds = kDefaultSeconds;
    bool timed = !transactions;
    if (parser.isSet(QStringLiteral("l"))) {
        const QString text = parser.value(QStringLiteral("l")).trimmed();
        if (transactions && text.startsWith(QLatin1Char('-'))) {
            const auto n = parseCount(QStringLiteral("-l"), text.mid(1), 1, kMaxTransactions);
            if (!n)
                return n.error();
            transactions = *n;
        } else {
            const auto l = parsePositiveSeconds(QStringLiteral("-l"), text);
            if (!l)
                return l.error();
            seconds = *l;
            timed = true;
        }
    } else if (!transactions || *transactions == 0) {
        timed = true;
    }
    if (transactions && *transactions > 0) {
        plan.limit = app::PointLimit::Requests;
        plan.requestsPerPoint = *transactions;
        plan.requestsTimeLimitSeconds = timed ? seconds : 0;
    } else {
        plan.limit = app::PointLimit::Duration;
        plan.durationSeconds = seconds;
    }
    return {};
}

Result<std::pair<int, int>> parseSizes(const QString& text, uint32_t maxBytes) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*(\\d{1,10})\\s*(?:,\\s*(\\d{1,10})\\s*)?$"));
    const auto match = pattern.match(text);
    const qulonglong req = match.captured(1).toULongLong();
    const qulonglong resp = match.captured(2).isEmpty() ? req : match.captured(2).toULongLong();
    if (!match.hasMatch() || req < 1 || resp < 1 || req > maxBytes || resp > maxBytes)
        return invalidInput(QStringLiteral("-r wants REQUEST,RESPONSE sizes in bytes from 1 to "
                                           "%1 (e.g. 1,1 or 100,200), not '%2'")
                                .arg(maxBytes)
                                .arg(text));
    return std::pair{int(req), int(resp)};
}

int parseAndRun(QCommandLineParser& parser, const QStringList& arguments, const CliIo& io,
                ReadInvocation read, FormatReport format, ToJson toJson) {
    const QString command = arguments.value(0);
    auto prepared = prepareRun(parser, arguments, read, io);
    if (const int* exit = std::get_if<int>(&prepared))
        return *exit;
    auto& [invocation, spec, preload] = std::get<1>(prepared);
    const app::NetperfRunSetup& setup = invocation.setup;
    readDefaultSocketSizes(spec.target.family(), invocation.setup);
    const OutputOptions& output = invocation.output;
    if (invocation.shot.plan.levelKind == app::SweepLevelKind::Capacity) {
        app::CliResultContext context;
        context.protocol = invocation.shot.target.protocol;
        context.netperf = setup;
        return runCapacitySearch(command, invocation.shot, spec, std::move(preload), output,
                                 context, io);
    }
    if (!output.quiet)
        std::fprintf(io.err, "%s test to %s (be patient)\n", qPrintable(setup.test),
                     qPrintable(setup.server));
    OneShotRunner runner(io, remoteLoadOf(invocation));
    const engine::RunResult result = runner.run(spec, output.quiet);
    if (result.unreachable) {
        printError(io, command, QString::fromStdString(result.firstError));
        return ExitUnreachable;
    }
    if (output.printsReport()) {
        std::fputs(qPrintable(format(result, setup)), io.out);
        std::fflush(io.out);
    }
    const app::PointResult point = oneShotResult(result, invocation.shot);
    return finishRun(command, result, point, output, toJson(point, setup), runner);
}

} // namespace netperf

namespace {

using namespace netperf;

Result<Invocation> readTcpRrInvocation(const QCommandLineParser& parser) {
    auto invocation = readCommon(parser, app::TargetProtocol::TcpRr);
    if (!invocation)
        return invocation;
    app::Target& target = invocation->shot.target;
    if (parser.isSet(QStringLiteral("r"))) {
        const auto sizes =
            parseSizes(parser.value(QStringLiteral("r")), engine::kMaxTcpMessageBytes);
        if (!sizes)
            return sizes.error();
        std::tie(target.tcpRr.requestSize, target.tcpRr.responseSize) = *sizes;
    }
    target.tcpRr.connectPerRequest = parser.isSet(QStringLiteral("crr"));
    target.tcpRr.tls = parser.isSet(QStringLiteral("tls"));
    readTlsClientOptions(parser, target.tcpRr);
    if (const QStringList tls = tlsClientOptionsSet(parser); !tls.isEmpty() && !target.tcpRr.tls)
        return invalidInput(
            QStringLiteral("%1 is a TLS option: it needs --tls").arg(tls.constFirst()));
    uint64_t transactions = 0;
    if (parser.isSet(QStringLiteral("n"))) {
        const auto n = parseCount(QStringLiteral("-n"), parser.value(QStringLiteral("n")), 1,
                                  kMaxTransactions);
        if (!n)
            return n.error();
        transactions = *n;
    }
    if (auto length = readLength(parser, invocation->shot.plan, transactions); !length)
        return length.error();
    if (parser.isSet(QStringLiteral("timeout"))) {
        const auto timeout = parsePositiveSeconds(QStringLiteral("--timeout"),
                                                  parser.value(QStringLiteral("timeout")));
        if (!timeout)
            return timeout.error();
        target.responseTimeoutSeconds = *timeout;
    }
    auto output = readCommonRunOptions(parser, invocation->shot.plan);
    if (!output)
        return output.error();
    invocation->output = *output;
    app::NetperfRunSetup& setup = invocation->setup;
    setup.test =
        target.tcpRr.connectPerRequest ? QStringLiteral("TCP_CRR") : QStringLiteral("TCP_RR");
    setup.requestSize = uint32_t(target.tcpRr.requestSize);
    setup.responseSize = uint32_t(target.tcpRr.responseSize);
    setup.tls = target.tcpRr.tls;
    if (auto capacity = readCapacityOptions(parser, invocation->shot,
                                            {QStringLiteral("l"), QStringLiteral("n")});
        !capacity)
        return capacity.error();
    if (auto rate = readRateOptions(parser, invocation->shot); !rate)
        return rate.error();
    return invocation;
}

Result<Invocation> readTcpStreamInvocation(const QCommandLineParser& parser) {
    auto invocation = readCommon(parser, app::TargetProtocol::TcpStream);
    if (!invocation)
        return invocation;
    app::Target& target = invocation->shot.target;
    if (parser.isSet(QStringLiteral("m"))) {
        const auto m = parseCount(QStringLiteral("-m"), parser.value(QStringLiteral("m")), 1,
                                  engine::kMaxTcpMessageBytes);
        if (!m)
            return m.error();
        target.tcpStream.chunkSize = int(*m);
    }
    if (auto length = readLength(parser, invocation->shot.plan, std::nullopt); !length)
        return length.error();
    if (parser.isSet(QStringLiteral("s"))) {
        // ab's -s: how long the drain waits for the sink's close.
        const auto timeout =
            parsePositiveSeconds(QStringLiteral("-s"), parser.value(QStringLiteral("s")));
        if (!timeout)
            return timeout.error();
        target.responseTimeoutSeconds = *timeout;
    }
    auto output = readCommonRunOptions(parser, invocation->shot.plan);
    if (!output)
        return output.error();
    invocation->output = *output;
    invocation->setup.test = QStringLiteral("TCP_STREAM");
    invocation->setup.sendSize = uint32_t(target.tcpStream.chunkSize);
    if (auto rate = readRateOptions(parser, invocation->shot); !rate)
        return rate.error();
    return invocation;
}

void addTcpRrOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "TCP request/response against HOST:PORT, as netperf TCP_RR (or TCP_CRR with --crr):\n"
        "send REQ bytes, wait for exactly RESP bytes, repeat. The peer must answer RESP bytes\n"
        "per REQ bytes, e.g. 'loadscope-cli serve echo --request-size REQ --response-size "
        "RESP'.\nRuns -l seconds (default 10) or -n transactions; with both, whichever ends "
        "first."));
    addConnectionOptions(parser);
    parser.addOptions({
        {QStringLiteral("r"), QStringLiteral("Request and response sizes (default 1,1)."),
         QStringLiteral("REQ,RESP")},
        {QStringLiteral("l"),
         QStringLiteral("Seconds to run (default 10); -l -N runs N transactions, as netperf."),
         QStringLiteral("seconds")},
        {QStringLiteral("n"), QStringLiteral("Transactions to run, in total over the connections."),
         QStringLiteral("transactions")},
        {QStringLiteral("crr"),
         QStringLiteral("Connect per transaction (netperf TCP_CRR): one connection each.")},
        {QStringLiteral("timeout"),
         QStringLiteral("Seconds to wait for a response before counting a timeout (default 30)."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("tls"),
         QStringLiteral("Raw TLS on every connection, no ALPN (the peer e.g. 'loadscope-cli\n"
                        "serve echo --tls'); with --crr a handshake per transaction.")},
    });
    addTlsClientOptions(parser, QStringLiteral("--tls"));
    addRateOptions(parser, true);
    addCapacityOptions(parser);
    addCommonRunOptions(parser);
}

void addTcpStreamOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "TCP send throughput to HOST:PORT, as netperf TCP_STREAM: write -m bytes per call for\n"
        "-l seconds (default 10) on each connection; the peer only reads, e.g.\n"
        "'loadscope-cli serve sink'. Throughput counts the bytes delivered, measured as netperf\n"
        "TCP_STREAM does: at the end of the duration each connection is shut down for writing\n"
        "and the run waits for the sink to close it, having read everything; the time runs\n"
        "until that close (at most -s seconds more)."));
    addConnectionOptions(parser);
    parser.addOptions({
        {QStringLiteral("l"), QStringLiteral("Seconds to run (default 10)."),
         QStringLiteral("seconds")},
        {QStringLiteral("m"), QStringLiteral("Bytes per send call (default 16384)."),
         QStringLiteral("bytes")},
        {{QStringLiteral("s"), QStringLiteral("timeout")},
         QStringLiteral("The request timeout (-s or --timeout, default 30 s): how long the end "
                        "waits for the sink's close; a sink that does not close is timed to when "
                        "it had acknowledged the last byte."),
         QStringLiteral("SECONDS")},
    });
    // Not in the help: a stream has no requests to space, and the engine says so in one line.
    addRateOptions(parser, true, true);
    addCommonRunOptions(parser);
}

} // namespace

Result<OneShot> parseTcpRrOneShot(const QStringList& arguments) {
    return parseOneShot(addTcpRrOptions, readTcpRrInvocation, arguments);
}

Result<OneShot> parseTcpStreamOneShot(const QStringList& arguments) {
    return parseOneShot(addTcpStreamOptions, readTcpStreamInvocation, arguments);
}

int runTcpRrCommand(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    addTcpRrOptions(parser);
    return parseAndRun(parser, arguments, io, readTcpRrInvocation, app::formatNetperfRrReport,
                       app::tcpRrResultJson);
}

int runTcpStreamCommand(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    addTcpStreamOptions(parser);
    return parseAndRun(parser, arguments, io, readTcpStreamInvocation,
                       app::formatNetperfStreamReport, app::tcpStreamResultJson);
}

} // namespace loadscope::cli
