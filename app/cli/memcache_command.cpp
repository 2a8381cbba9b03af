// loadscope-cli memcache: memtier_benchmark's options, the engine's memcached
// text-protocol workload, memtier's ALL STATS table.
//
// -t/--threads is memtier's (worker threads, default 4) and replaces the
// shared --threads of the other load commands, with the same meaning; -c is
// clients per thread, so the run opens clients x threads connections.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/error_reply_counting_protocol.h"
#include "app/report/memtier_report.h"
#include "engine/memcache_reply_parser.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>

namespace loadscope::cli {

namespace {

using namespace std::chrono;

constexpr uint32_t kDefaultThreads = 4;
constexpr uint32_t kDefaultClients = 50;
constexpr uint64_t kDefaultRequests = 10'000;
constexpr uint64_t kMaxConnections = 1'000'000;
constexpr uint64_t kMaxRequests = uint64_t(1) << 50;
// A preload of more keys would run for many minutes and outgrow any memcached.
constexpr uint64_t kMaxPreloadKeys = 100'000'000;

void addMemcacheOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "memcached text-protocol load (get and set) against HOST:PORT with memtier_benchmark's\n"
        "options; prints memtier's ALL STATS table. Connections: clients (-c) x threads (-t).\n"
        "Requests: -n per client or --test-time; without either, -n 10000. The run sends\n"
        "exactly n x c x t requests, a budget its connections share as they go, so one\n"
        "connection may send a few more than n and another a few less."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("HOST:PORT"),
                                 QStringLiteral("memcached server, e.g. 127.0.0.1:11211"));
    parser.addOptions({
        {{QStringLiteral("c"), QStringLiteral("clients")},
         QStringLiteral("Clients (connections) per thread (default 50)."),
         QStringLiteral("N")},
        {{QStringLiteral("t"), QStringLiteral("threads")},
         QStringLiteral("Worker threads (default 4); each runs its own clients."),
         QStringLiteral("N")},
        {{QStringLiteral("n"), QStringLiteral("requests")},
         QStringLiteral("Requests per client (default 10000); not with --test-time."),
         QStringLiteral("N")},
        {QStringLiteral("test-time"), QStringLiteral("Seconds to run instead of -n."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("ratio"), QStringLiteral("Set:get ratio (default 1:10)."),
         QStringLiteral("SETS:GETS")},
        {QStringLiteral("key-pattern"),
         QStringLiteral("Key pattern of sets and gets: R random, S sequential, G gaussian "
                        "(default R:R)."),
         QStringLiteral("SET:GET")},
        {QStringLiteral("key-minimum"), QStringLiteral("Smallest key number (default 0)."),
         QStringLiteral("N")},
        {QStringLiteral("key-maximum"), QStringLiteral("Largest key number (default 10000000)."),
         QStringLiteral("N")},
        {QStringLiteral("key-prefix"), QStringLiteral("Prefix of every key (default memtier-)."),
         QStringLiteral("PREFIX")},
        {QStringLiteral("key-stddev"),
         QStringLiteral("Standard deviation of the G pattern (default range / 6)."),
         QStringLiteral("SD")},
        {QStringLiteral("key-median"),
         QStringLiteral("Median of the G pattern (default the middle of the range)."),
         QStringLiteral("KEY")},
        {{QStringLiteral("d"), QStringLiteral("data-size")},
         QStringLiteral("Value size of the sets in bytes (default 32)."),
         QStringLiteral("BYTES")},
        {QStringLiteral("pipeline"),
         QStringLiteral("Requests outstanding per connection (default 1)."), QStringLiteral("N")},
        {QStringLiteral("preload"),
         QStringLiteral("Before measuring, set every key of the range once (not measured).")},
        {QStringLiteral("timeout"),
         QStringLiteral("Seconds to wait for each reply before counting a timeout (default 30)."),
         QStringLiteral("SECONDS")},
        // The shared run options, without --threads (memtier's -t above takes its place).
        {QStringLiteral("cpus"),
         QStringLiteral("Pin worker thread i to the i-th CPU of LIST, e.g. 0,2-3."),
         QStringLiteral("LIST")},
        {QStringLiteral("warmup"),
         QStringLiteral("Run this long before measuring; warm-up requests are not counted."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("json"), QStringLiteral("Write the result as JSON to PATH (- for stdout)."),
         QStringLiteral("PATH")},
        {QStringLiteral("csv"),
         QStringLiteral("Write the result as one CSV row with a header to PATH."),
         QStringLiteral("PATH")},
        {QStringLiteral("q"), QStringLiteral("Do not print progress on stderr.")},
    });
}

struct MemcacheRun {
    HostPort server;
    engine::LoadSpec spec;
    CommonRunOptions common;
    app::MemcacheRunSetup setup;
    bool preload = false;
};

template <typename Value>
bool readCount(const QCommandLineParser& parser, const char* name, uint64_t minimum,
               uint64_t maximum, Value& into, QString* error) {
    if (!parser.isSet(QLatin1String(name)))
        return true;
    const QString option =
        (std::strlen(name) == 1 ? QLatin1String("-") : QLatin1String("--")) + QLatin1String(name);
    const auto value =
        parseCount(option, parser.value(QLatin1String(name)), minimum, maximum, error);
    if (!value)
        return false;
    into = Value(*value);
    return true;
}

bool readWorkload(const QCommandLineParser& parser, engine::MemcacheSpec& w, QString* error) {
    const auto opt = [&](const char* name) {
        return parser.value(QLatin1String(name));
    };
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (isSet("ratio") &&
        !engine::parseMemcacheRatio(opt("ratio").toStdString(), w.setRatio, w.getRatio)) {
        *error = QStringLiteral("--ratio wants SETS:GETS such as 1:10 (not both 0), not '%1'")
                     .arg(opt("ratio"));
        return false;
    }
    if (isSet("key-pattern") &&
        !engine::parseMemcacheKeyPatterns(opt("key-pattern").toStdString(), w.setKeyPattern,
                                          w.getKeyPattern)) {
        *error = QStringLiteral("--key-pattern wants SET:GET, each R, S or G (e.g. R:R), not '%1'")
                     .arg(opt("key-pattern"));
        return false;
    }
    const uint64_t max64 = std::numeric_limits<uint64_t>::max();
    if (!readCount(parser, "key-minimum", 0, max64, w.keyMinimum, error) ||
        !readCount(parser, "key-maximum", 0, max64, w.keyMaximum, error) ||
        !readCount(parser, "d", 1, engine::MemcacheReplyParser::kMaxValueBytes, w.valueSize, error))
        return false;
    if (w.keyMinimum > w.keyMaximum) {
        *error = QStringLiteral("--key-minimum (%1) is greater than --key-maximum (%2)")
                     .arg(w.keyMinimum)
                     .arg(w.keyMaximum);
        return false;
    }
    if (isSet("key-prefix"))
        w.keyPrefix = opt("key-prefix").toStdString();
    const auto readDouble = [&](const char* name, double& into) {
        bool ok = false;
        into = opt(name).toDouble(&ok);
        if (!ok || into < 0) {
            *error = QStringLiteral("--%1 wants a non-negative number, not '%2'")
                         .arg(QLatin1String(name), opt(name));
            return false;
        }
        return true;
    };
    if (isSet("key-stddev") && !readDouble("key-stddev", w.keyStddev))
        return false;
    if (isSet("key-median")) {
        double median = 0;
        if (!readDouble("key-median", median))
            return false;
        w.keyMedian = median;
    }
    if (auto problem = engine::validateMemcacheSpec(w)) {
        *error = QString::fromStdString(*problem);
        return false;
    }
    return true;
}

std::optional<MemcacheRun> readMemcacheRun(const QCommandLineParser& parser, QString* error) {
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (parser.positionalArguments().size() != 1) {
        *error = QStringLiteral("expected exactly one HOST:PORT (see --help)");
        return std::nullopt;
    }
    MemcacheRun run;
    auto server = parseHostPort(parser.positionalArguments().constFirst(), error);
    if (!server)
        return std::nullopt;
    run.server = *server;

    app::MemcacheRunSetup& setup = run.setup;
    setup.server = parser.positionalArguments().constFirst();
    setup.threads = kDefaultThreads;
    setup.clientsPerThread = kDefaultClients;
    if (!readCount(parser, "t", 1, 1024, setup.threads, error) ||
        !readCount(parser, "c", 1, kMaxConnections, setup.clientsPerThread, error) ||
        !readCount(parser, "pipeline", 1, 1024, setup.pipeline, error))
        return std::nullopt;
    const uint64_t connections = uint64_t(setup.threads) * setup.clientsPerThread;
    if (connections > kMaxConnections) {
        *error = QStringLiteral("-c %1 x -t %2 is more than %3 connections")
                     .arg(setup.clientsPerThread)
                     .arg(setup.threads)
                     .arg(kMaxConnections);
        return std::nullopt;
    }
    if (isSet("n") && isSet("test-time")) {
        *error = QStringLiteral("-n/--requests and --test-time cannot be combined: give one");
        return std::nullopt;
    }
    engine::LoadSpec& spec = run.spec;
    if (isSet("test-time")) {
        const auto seconds = parseSeconds(QStringLiteral("--test-time"),
                                          parser.value(QStringLiteral("test-time")), error);
        if (!seconds)
            return std::nullopt;
        if (*seconds <= 0) {
            *error = QStringLiteral("--test-time must be more than 0 seconds");
            return std::nullopt;
        }
        setup.testTimeSeconds = *seconds;
        spec.duration = duration_cast<nanoseconds>(duration<double>(*seconds));
    } else {
        setup.requestsPerClient = kDefaultRequests;
        if (!readCount(parser, "n", 1, kMaxRequests / connections, setup.requestsPerClient, error))
            return std::nullopt;
        spec.requests = setup.requestsPerClient * connections;
    }
    if (isSet("timeout")) {
        const auto timeout = parseSeconds(QStringLiteral("--timeout"),
                                          parser.value(QStringLiteral("timeout")), error);
        if (!timeout)
            return std::nullopt;
        if (*timeout <= 0) {
            *error = QStringLiteral("--timeout must be more than 0 seconds");
            return std::nullopt;
        }
        spec.requestTimeout = duration_cast<nanoseconds>(duration<double>(*timeout));
    }
    if (!readWorkload(parser, setup.workload, error))
        return std::nullopt;
    setup.workload.connections = uint32_t(connections);
    run.preload = isSet("preload");
    if (run.preload) {
        const uint64_t keys = engine::MemcachePreloadProtocol(setup.workload).keyCount();
        if (keys > kMaxPreloadKeys) {
            *error = QStringLiteral("--preload of %1 keys is more than %2: narrow the range with "
                                    "--key-minimum and --key-maximum")
                         .arg(keys)
                         .arg(kMaxPreloadKeys);
            return std::nullopt;
        }
    }

    auto common = readCommonRunOptions(parser, error);
    if (!common)
        return std::nullopt;
    run.common = *common;
    run.common.threads = setup.threads;
    applyCommonRunOptions(run.common, spec);
    spec.concurrency = uint32_t(connections);
    spec.pipeline = setup.pipeline;
    return run;
}

// Sets every key of the range once, unmeasured, with the run's connections and threads.
engine::RunResult preload(const MemcacheRun& run) {
    auto protocol = std::make_shared<engine::MemcachePreloadProtocol>(run.setup.workload);
    engine::LoadSpec spec = run.spec;
    spec.protocol = protocol;
    spec.requests = protocol->keyCount();
    spec.duration = nanoseconds(0);
    spec.warmup = nanoseconds(0);
    spec.concurrency = uint32_t(std::min<uint64_t>(spec.concurrency, spec.requests));
    if (!run.common.quiet)
        std::fprintf(stderr, "Preloading %llu keys\n",
                     static_cast<unsigned long long>(spec.requests));
    return runWithProgress(spec, true);
}

} // namespace

int runMemcacheCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    addMemcacheOptions(parser);
    if (auto exit = parseOrExit(parser, arguments))
        return *exit;
    QString error;
    auto run = readMemcacheRun(parser, &error);
    if (!run) {
        printError(command, error);
        return ExitUsage;
    }
    if (auto exit = resolveRunTarget(command, run->server.host, run->server.port, run->spec))
        return *exit;
    auto workload = std::make_shared<engine::MemcacheProtocol>(run->setup.workload);
    const size_t operations = workload->operationNames().size();
    run->spec.protocol = std::make_shared<app::ErrorReplyCountingProtocol>(workload);
    if (auto exit = refuseInvalidSpec(command, run->spec))
        return *exit;

    if (run->preload) {
        const engine::RunResult loaded = preload(*run);
        if (loaded.unreachable) {
            printError(command, QString::fromStdString(loaded.firstError));
            return ExitUnreachable;
        }
        run->setup.preload = app::MemcachePreloadSummary{loaded.complete, loaded.durationSeconds,
                                                         loaded.failed, loaded.firstError};
        if (!run->common.quiet)
            std::fprintf(stderr, "Preloaded %llu keys in %.2f s\n",
                         static_cast<unsigned long long>(loaded.complete), loaded.durationSeconds);
    }
    if (!run->common.quiet)
        std::fprintf(stderr, "Benchmarking %s (be patient)\n", qPrintable(run->setup.server));
    app::MemcacheRunReport report;
    report.result = runWithProgress(run->spec, run->common.quiet);
    if (report.result.unreachable) {
        printError(command, QString::fromStdString(report.result.firstError));
        return ExitUnreachable;
    }
    report.errorReplies = app::foldErrorReplies(report.result, operations);

    if (run->common.jsonPath != QLatin1String("-") && run->common.csvPath != QLatin1String("-")) {
        std::fputs(qPrintable(app::formatMemtierReport(report, run->setup)), stdout);
        std::fflush(stdout);
    }
    const QString warning = app::saturationWarning(report.result);
    if (!warning.isEmpty())
        std::fprintf(stderr, "%s\n", qPrintable(warning));
    if (!writeMachineOutputs(command, run->common, app::memcacheResultJson(report, run->setup)))
        return ExitInternal;
    return ExitOk;
}

} // namespace loadscope::cli
