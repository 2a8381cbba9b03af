// loadscope-cli tcp-rr and tcp-stream: netperf's TCP_RR / TCP_CRR and
// TCP_STREAM workloads with netperf's option letters, netperf's layout.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/netperf_report.h"
#include "engine/tcp_protocol.h"

#include <QRegularExpression>
#include <chrono>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::cli {

namespace {

using namespace std::chrono;

constexpr double kDefaultSeconds = 10; // netperf's -l
constexpr uint64_t kMaxConnections = 1'000'000;
constexpr uint64_t kMaxTransactions = uint64_t(1) << 50;

void addConnectionOptions(QCommandLineParser& parser) {
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("HOST:PORT"),
                                 QStringLiteral("the peer, e.g. 127.0.0.1:12865"));
    parser.addOption({QStringLiteral("c"), QStringLiteral("Connections open at once (default 1)."),
                      QStringLiteral("connections")});
}

struct TcpRun {
    HostPort server;
    engine::LoadSpec spec;
    CommonRunOptions common;
    app::NetperfRunSetup setup;
};

// A new socket's buffer sizes: what the engine's sockets get, since it never sets them.
void readDefaultSocketSizes(int family, app::NetperfRunSetup& setup) {
    const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    socklen_t length = sizeof setup.socketSendBytes;
    ::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &setup.socketSendBytes, &length);
    length = sizeof setup.socketRecvBytes;
    ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &setup.socketRecvBytes, &length);
    ::close(fd);
}

// Reads HOST:PORT, -c and the shared run options into `run`.
bool readCommon(const QCommandLineParser& parser, TcpRun& run, QString* error) {
    if (parser.positionalArguments().size() != 1) {
        *error = QStringLiteral("expected exactly one HOST:PORT (see --help)");
        return false;
    }
    auto server = parseHostPort(parser.positionalArguments().constFirst(), error);
    if (!server)
        return false;
    run.server = *server;
    run.setup.server = parser.positionalArguments().constFirst();
    run.spec.concurrency = 1;
    if (parser.isSet(QStringLiteral("c"))) {
        const auto c = parseCount(QStringLiteral("-c"), parser.value(QStringLiteral("c")), 1,
                                  kMaxConnections, error);
        if (!c)
            return false;
        run.spec.concurrency = uint32_t(*c);
    }
    auto common = readCommonRunOptions(parser, error);
    if (!common)
        return false;
    run.common = *common;
    applyCommonRunOptions(run.common, run.spec);
    return true;
}

// -l SECONDS; netperf's "-l -N" (N transactions) is accepted where `transactions` is given.
bool readLength(const QCommandLineParser& parser, engine::LoadSpec& spec, uint64_t* transactions,
                QString* error) {
    double seconds = kDefaultSeconds;
    if (parser.isSet(QStringLiteral("l"))) {
        const QString text = parser.value(QStringLiteral("l")).trimmed();
        if (transactions && text.startsWith(QLatin1Char('-'))) {
            const auto n =
                parseCount(QStringLiteral("-l"), text.mid(1), 1, kMaxTransactions, error);
            if (!n)
                return false;
            *transactions = *n;
            return true;
        }
        const auto l = parseSeconds(QStringLiteral("-l"), text, error);
        if (!l)
            return false;
        if (*l <= 0) {
            *error = QStringLiteral("-l must be more than 0 seconds");
            return false;
        }
        seconds = *l;
    } else if (transactions && *transactions > 0) {
        return true; // -n alone: run until that many transactions
    }
    spec.duration = duration_cast<nanoseconds>(duration<double>(seconds));
    return true;
}

bool resolveTarget(const QString& command, TcpRun& run, int* exitCode) {
    if (auto exit = resolveRunTarget(command, run.server.host, run.server.port, run.spec)) {
        *exitCode = *exit;
        return false;
    }
    readDefaultSocketSizes(run.spec.target.family(), run.setup);
    if (auto exit = refuseInvalidSpec(command, run.spec)) {
        *exitCode = *exit;
        return false;
    }
    return true;
}

// Runs, prints the report unless JSON or CSV goes to stdout, writes --json/--csv.
int runAndReport(const QString& command, const TcpRun& run,
                 QString (*format)(const engine::RunResult&, const app::NetperfRunSetup&),
                 QJsonObject (*toJson)(const engine::RunResult&, const app::NetperfRunSetup&)) {
    if (!run.common.quiet)
        std::fprintf(stderr, "%s test to %s (be patient)\n", qPrintable(run.setup.test),
                     qPrintable(run.setup.server));
    const engine::RunResult result = runWithProgress(run.spec, run.common.quiet);
    if (result.unreachable) {
        printError(command, QString::fromStdString(result.firstError));
        return ExitUnreachable;
    }
    if (run.common.jsonPath != QLatin1String("-") && run.common.csvPath != QLatin1String("-")) {
        std::fputs(qPrintable(format(result, run.setup)), stdout);
        std::fflush(stdout);
    }
    const QString warning = app::saturationWarning(result);
    if (!warning.isEmpty())
        std::fprintf(stderr, "%s\n", qPrintable(warning));
    if (!writeMachineOutputs(command, run.common, toJson(result, run.setup)))
        return ExitInternal;
    return ExitOk;
}

// "REQ,RESP", or "N" for both, as netperf's -r.
bool parseSizes(const QString& text, uint32_t& request, uint32_t& response, QString* error) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*(\\d{1,10})\\s*(?:,\\s*(\\d{1,10})\\s*)?$"));
    const auto match = pattern.match(text);
    const qulonglong req = match.captured(1).toULongLong();
    const qulonglong resp = match.captured(2).isEmpty() ? req : match.captured(2).toULongLong();
    if (!match.hasMatch() || req < 1 || resp < 1 || req > engine::kMaxTcpMessageBytes ||
        resp > engine::kMaxTcpMessageBytes) {
        *error = QStringLiteral("-r wants REQUEST,RESPONSE sizes in bytes from 1 to %1 (e.g. "
                                "1,1 or 100,200), not '%2'")
                     .arg(engine::kMaxTcpMessageBytes)
                     .arg(text);
        return false;
    }
    request = uint32_t(req);
    response = uint32_t(resp);
    return true;
}

std::optional<TcpRun> readTcpRrRun(const QCommandLineParser& parser, QString* error) {
    TcpRun run;
    if (!readCommon(parser, run, error))
        return std::nullopt;
    engine::TcpRrSpec rr;
    if (parser.isSet(QStringLiteral("r")) &&
        !parseSizes(parser.value(QStringLiteral("r")), rr.requestSize, rr.responseSize, error))
        return std::nullopt;
    rr.connectPerTransaction = parser.isSet(QStringLiteral("crr"));
    uint64_t transactions = 0;
    if (parser.isSet(QStringLiteral("n"))) {
        const auto n = parseCount(QStringLiteral("-n"), parser.value(QStringLiteral("n")), 1,
                                  kMaxTransactions, error);
        if (!n)
            return std::nullopt;
        transactions = *n;
    }
    if (!readLength(parser, run.spec, &transactions, error))
        return std::nullopt;
    run.spec.requests = transactions;
    if (transactions > 0 && transactions < run.spec.concurrency) {
        *error = QStringLiteral("cannot run fewer transactions (%1) than connections (-c %2)")
                     .arg(transactions)
                     .arg(run.spec.concurrency);
        return std::nullopt;
    }
    if (parser.isSet(QStringLiteral("timeout"))) {
        const auto timeout = parseSeconds(QStringLiteral("--timeout"),
                                          parser.value(QStringLiteral("timeout")), error);
        if (!timeout)
            return std::nullopt;
        if (*timeout <= 0) {
            *error = QStringLiteral("--timeout must be more than 0 seconds");
            return std::nullopt;
        }
        run.spec.requestTimeout = duration_cast<nanoseconds>(duration<double>(*timeout));
    }
    if (auto problem = engine::validateTcpRrSpec(rr)) {
        *error = QString::fromStdString(*problem);
        return std::nullopt;
    }
    run.setup.test =
        rr.connectPerTransaction ? QStringLiteral("TCP_CRR") : QStringLiteral("TCP_RR");
    run.setup.requestSize = rr.requestSize;
    run.setup.responseSize = rr.responseSize;
    run.spec.protocol = std::make_shared<engine::TcpRrProtocol>(rr);
    return run;
}

std::optional<TcpRun> readTcpStreamRun(const QCommandLineParser& parser, QString* error) {
    TcpRun run;
    if (!readCommon(parser, run, error))
        return std::nullopt;
    engine::TcpStreamSpec stream;
    if (parser.isSet(QStringLiteral("m"))) {
        const auto m = parseCount(QStringLiteral("-m"), parser.value(QStringLiteral("m")), 1,
                                  engine::kMaxTcpMessageBytes, error);
        if (!m)
            return std::nullopt;
        stream.chunkSize = uint32_t(*m);
    }
    if (!readLength(parser, run.spec, nullptr, error))
        return std::nullopt;
    if (auto problem = engine::validateTcpStreamSpec(stream)) {
        *error = QString::fromStdString(*problem);
        return std::nullopt;
    }
    run.setup.test = QStringLiteral("TCP_STREAM");
    run.setup.sendSize = stream.chunkSize;
    run.spec.protocol = std::make_shared<engine::TcpStreamProtocol>(stream);
    return run;
}

// The steps both commands share once their options are declared.
int parseAndRun(const QString& command, QCommandLineParser& parser, const QStringList& arguments,
                std::optional<TcpRun> (*read)(const QCommandLineParser&, QString*),
                QString (*format)(const engine::RunResult&, const app::NetperfRunSetup&),
                QJsonObject (*toJson)(const engine::RunResult&, const app::NetperfRunSetup&)) {
    if (auto exit = parseOrExit(parser, arguments))
        return *exit;
    QString error;
    auto run = read(parser, &error);
    if (!run) {
        printError(command, error);
        return ExitUsage;
    }
    int exitCode = ExitOk;
    if (!resolveTarget(command, *run, &exitCode))
        return exitCode;
    return runAndReport(command, *run, format, toJson);
}

} // namespace

int runTcpRrCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
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
    });
    addCommonRunOptions(parser);
    return parseAndRun(command, parser, arguments, readTcpRrRun, app::formatNetperfRrReport,
                       app::tcpRrResultJson);
}

int runTcpStreamCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "TCP send throughput to HOST:PORT, as netperf TCP_STREAM: write -m bytes per call for\n"
        "-l seconds (default 10) on each connection; the peer only reads, e.g.\n"
        "'loadscope-cli serve sink'. Throughput counts the bytes sent in the measured time."));
    addConnectionOptions(parser);
    parser.addOptions({
        {QStringLiteral("l"), QStringLiteral("Seconds to run (default 10)."),
         QStringLiteral("seconds")},
        {QStringLiteral("m"), QStringLiteral("Bytes per send call (default 16384)."),
         QStringLiteral("bytes")},
    });
    addCommonRunOptions(parser);
    return parseAndRun(command, parser, arguments, readTcpStreamRun, app::formatNetperfStreamReport,
                       app::tcpStreamResultJson);
}

} // namespace loadscope::cli
