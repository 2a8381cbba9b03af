#include "app/cli/commands.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>
#include <functional>
#include <map>

using namespace loadscope::cli;

namespace {

const std::map<QString, std::function<int(const QStringList&)>>& commands() {
    static const std::map<QString, std::function<int(const QStringList&)>> table{
        {QStringLiteral("http"), runHttpCommand},
        {QStringLiteral("memcache"), runMemcacheCommand},
        {QStringLiteral("tcp-rr"), runTcpRrCommand},
        {QStringLiteral("tcp-stream"), runTcpStreamCommand},
        {QStringLiteral("serve"), runServeCommand},
        {QStringLiteral("sweep"), runSweepCommand},
        {QStringLiteral("report"), runReportCommand},
        {QStringLiteral("export"), runExportCommand},
        {QStringLiteral("import"), runImportCommand},
    };
    return table;
}

void printUsage(FILE* stream) {
    std::fputs("Usage: loadscope-cli COMMAND [options] ...\n"
               "\n"
               "Commands:\n"
               "  http URL               HTTP/1.1 load, ab-compatible options and report\n"
               "  memcache HOST:PORT     memcached text protocol, memtier_benchmark options\n"
               "  tcp-rr HOST:PORT       TCP request/response, as netperf TCP_RR / TCP_CRR\n"
               "  tcp-stream HOST:PORT   TCP send throughput, as netperf TCP_STREAM\n"
               "  serve KIND             embedded servers: http, echo, sink, proxy\n"
               "  sweep SESSION          run a session's sweep headless\n"
               "  report SESSION         print a saved session's comparison\n"
               "  export SESSION         write a saved session's CSV and percentile files\n"
               "  import ...             import ab, wrk, memtier_benchmark, netperf output\n"
               "\n"
               "'loadscope-cli COMMAND --help' describes a command's options.\n",
               stream);
}

} // namespace

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("loadscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADSCOPE_VERSION));

    QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() < 2) {
        printUsage(stderr);
        return ExitUsage;
    }
    const QString command = arguments.at(1);
    if (command == QLatin1String("--help") || command == QLatin1String("-h")) {
        printUsage(stdout);
        return ExitOk;
    }
    if (command == QLatin1String("--version")) {
        std::printf("loadscope-cli %s\n", LOADSCOPE_VERSION);
        return ExitOk;
    }
    const auto found = commands().find(command);
    if (found == commands().end()) {
        std::fprintf(stderr, "loadscope-cli: unknown command '%s' (see loadscope-cli --help)\n",
                     qPrintable(command));
        return ExitUsage;
    }
    arguments.removeFirst();
    arguments[0] = QStringLiteral("loadscope-cli ") + command;
    return found->second(arguments);
}
