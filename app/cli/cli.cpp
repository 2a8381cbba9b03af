#include "app/cli/commands.h"
#include "app/common/atomic_file_writer.h"

#include <QString>
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace loadscope::cli {

namespace {

using Command = std::function<int(const QStringList&, const CliIo&)>;

template <int (*run)(const QStringList&)>
int withoutIo(const QStringList& arguments, const CliIo&) {
    return run(arguments);
}

// In the order the usage lists them.
const std::vector<std::pair<QString, Command>>& commands() {
    static const std::vector<std::pair<QString, Command>> table{
        {QStringLiteral("http"), runHttpCommand},
        {QStringLiteral("memcache"), runMemcacheCommand},
        {QStringLiteral("tcp-rr"), runTcpRrCommand},
        {QStringLiteral("tcp-stream"), runTcpStreamCommand},
        {QStringLiteral("udp-rr"), runUdpRrCommand},
        {QStringLiteral("udp-stream"), runUdpStreamCommand},
        {QStringLiteral("serve"), withoutIo<runServeCommand>},
        {QStringLiteral("sweep"), runSweepCommand},
        {QStringLiteral("report"), withoutIo<runReportCommand>},
        {QStringLiteral("export"), withoutIo<runExportCommand>},
        {QStringLiteral("import"), withoutIo<runImportCommand>},
        {QStringLiteral("lab"), runLabCommand},
        {QStringLiteral("hosts"), runHostsCommand},
    };
    return table;
}

void printUsage(FILE* stream) {
    std::fputs(
        "Usage: loadscope-cli COMMAND [options] ...\n"
        "Load, sweeps, reports and the deployment lab of Loadscope, without the window.\n"
        "\n"
        "Commands:\n"
        "  http URL               HTTP/1.1 and HTTP/2 load, ab-compatible options and report\n"
        "  memcache HOST:PORT     memcached text protocol, memtier_benchmark options\n"
        "  tcp-rr HOST:PORT       TCP request/response, as netperf TCP_RR / TCP_CRR\n"
        "  tcp-stream HOST:PORT   TCP send throughput, as netperf TCP_STREAM\n"
        "  udp-rr HOST:PORT       UDP request/response, as netperf UDP_RR\n"
        "  udp-stream HOST:PORT   UDP send throughput and loss, as netperf UDP_STREAM\n"
        "  serve KIND             embedded servers: http, echo, sink, proxy\n"
        "  sweep SESSION          run a session's sweep headless\n"
        "  report SESSION         print a saved session's comparison\n"
        "  export SESSION         write a saved session's CSV and percentile files\n"
        "  import ...             import ab, wrk, wrk2, h2load, memtier_benchmark, netperf output\n"
        "  lab check|sandbox      the deployment lab: which modes build here; build and run\n"
        "  lab agent              the load agent the lab, the sweep and other hosts run\n"
        "  hosts check            reach a session's hosts over ssh and say what runs there\n"
        "\n"
        "'loadscope-cli COMMAND --help' describes a command's options.\n"
        "\n"
        "Exit status: 0 when the command did what it was asked, 1 for an internal error, 2 for\n"
        "bad arguments or input, 3 when a target could not be reached; a load command or a\n"
        "sweep stopped by SIGINT or SIGTERM exits 130 or 143 after its report.\n",
        stream);
}

} // namespace

QStringList commandNames() {
    QStringList names;
    for (const auto& [name, run] : commands())
        names << name;
    return names;
}

QStringList subcommandNames(const QString& command) {
    if (command == QLatin1String("lab"))
        return labSubcommands();
    if (command == QLatin1String("serve"))
        return serveKinds();
    return {};
}

namespace {

int runCommand(const QStringList& arguments, const CliIo& io) {
    if (arguments.isEmpty()) {
        printUsage(io.err);
        return ExitUsage;
    }
    const QString command = arguments.constFirst();
    if (command == QLatin1String("--help") || command == QLatin1String("-h")) {
        printUsage(io.out);
        return ExitOk;
    }
    if (command == QLatin1String("--version")) {
        std::fprintf(io.out, "loadscope-cli %s\n", LOADSCOPE_VERSION);
        return ExitOk;
    }
    const auto found =
        std::find_if(commands().begin(), commands().end(),
                     [&command](const auto& entry) { return entry.first == command; });
    if (found == commands().end()) {
        std::fprintf(io.err, "loadscope-cli: unknown command '%s' (see loadscope-cli --help)\n",
                     qPrintable(command));
        return ExitUsage;
    }
    QStringList commandArguments = arguments;
    commandArguments[0] = QStringLiteral("loadscope-cli ") + command;
    return found->second(commandArguments, io);
}

} // namespace

int runCli(const QStringList& arguments, const CliIo& io) {
    int status = runCommand(arguments, io);
    const QString command = arguments.isEmpty() || !commandNames().contains(arguments.constFirst())
                                ? QStringLiteral("loadscope-cli")
                                : QStringLiteral("loadscope-cli ") + arguments.constFirst();
    // A report that never reached its file (stdout on a full disk, a closed
    // pipe) is a failed command, not a silent exit 0. Exit status 1 is a
    // command that said what failed already (a --json - it could not write);
    // an interrupted run keeps its 130 or 143, and the line says the rest.
    if (auto flushed = app::flushStream(io.out, QStringLiteral("standard output"));
        !flushed && status != ExitInternal) {
        std::fprintf(io.err, "%s: %s\n", qPrintable(command), qPrintable(flushed.error().message));
        if (status == ExitOk)
            status = ExitInternal;
    }
    std::fflush(io.err);
    return status;
}

} // namespace loadscope::cli
