// loadscope-cli memcache: memtier_benchmark's options, the engine's memcached
// text-protocol workload or, with -P redis, resp2 or resp3, its Redis workload,
// memtier's ALL STATS table.
//
// Redis is a -P of this command rather than a command of its own because that
// is what memtier's users type: memtier_benchmark -P redis (its default) and
// -P memcache_text are one tool with one set of flags, and a command line
// copied from memtier keeps working with its -P. This command's default stays
// memcache_text, as it was before Redis, so that what ran then runs the same.
//
// -t/--threads is memtier's (worker threads, default 4) and replaces the
// shared --threads of the other load commands, with the same meaning; -c is
// clients per thread, so the run opens clients x threads connections.
#include "app/cli/capacity_one_shot.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/one_shot.h"
#include "app/cli/run_options.h"
#include "app/report/ab_report.h"
#include "app/report/error_reply_counting_protocol.h"
#include "app/report/memtier_report.h"
#include "app/session/target_rules.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/memcache_reply_parser.h"

#include <cstdio>
#include <cstring>
#include <limits>

namespace loadscope::cli {

namespace {

using app::invalidInput;
using app::Result;

constexpr uint32_t kDefaultThreads = 4;
constexpr uint32_t kDefaultClients = 50;
constexpr uint64_t kDefaultRequests = 10'000;
constexpr uint64_t kMaxConnections = 1'000'000;
constexpr uint64_t kMaxRequests = uint64_t(1) << 50;

void addMemcacheOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "memcached text-protocol or Redis load (get and set, or --command) against HOST:PORT\n"
        "with memtier_benchmark's options; prints memtier's ALL STATS table. Connections:\n"
        "clients (-c) x threads (-t). Requests: -n per client or --test-time; without either,\n"
        "-n 10000. The run sends exactly n x c x t requests, a budget its connections share\n"
        "as they go, so one connection may send a few more than n and another a few less."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("HOST:PORT"),
                                 QStringLiteral("memcached server, e.g. 127.0.0.1:11211"));
    parser.addOptions({
        {{QStringLiteral("P"), QStringLiteral("protocol")},
         QStringLiteral("memcache_text (default), or Redis: redis (RESP2), resp2 or resp3 "
                        "(HELLO 2 or HELLO 3 opens each connection)."),
         QStringLiteral("PROTOCOL")},
        {QStringLiteral("command"),
         QStringLiteral("Redis: a command to send instead of SET and GET, quoted as memtier "
                        "takes it, with __key__ and __data__ (repeatable)."),
         QStringLiteral("COMMAND")},
        {QStringLiteral("command-ratio"),
         QStringLiteral("Times the last --command is sent in a row (default 1)."),
         QStringLiteral("N")},
        {QStringLiteral("command-key-pattern"),
         QStringLiteral("Key pattern of the last --command: R, S or G (default R)."),
         QStringLiteral("R|S|G")},
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
    // Total requests/s over every connection (memtier's --rate-limiting is per connection).
    addRateOptions(parser, false);
    addCapacityOptions(parser);
    addCpuRunOptions(parser);
    addWakeCoalescingOption(parser);
    addProfileOptions(parser);
    addAgentsOptions(parser);
}

struct MemcacheInvocation {
    OneShot shot;
    OutputOptions output;
    app::MemcacheRunSetup setup; // memtier's description of the run, for the report
};

template <typename Value>
Result<void> readCount(const QCommandLineParser& parser, const char* name, uint64_t minimum,
                       uint64_t maximum, Value& into) {
    if (!parser.isSet(QLatin1String(name)))
        return {};
    const QString option =
        (std::strlen(name) == 1 ? QLatin1String("-") : QLatin1String("--")) + QLatin1String(name);
    const auto value = parseCount(option, parser.value(QLatin1String(name)), minimum, maximum);
    if (!value)
        return value.error();
    into = Value(*value);
    return {};
}

Result<void> readWorkload(const QCommandLineParser& parser, app::MemcacheOptions& w) {
    const auto opt = [&](const char* name) {
        return parser.value(QLatin1String(name));
    };
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (isSet("ratio")) {
        const auto ratio = app::parseMemcacheRatio(opt("ratio"));
        if (!ratio)
            return ratio.error().prefixed(QStringLiteral("--ratio"));
        w.setRatio = ratio->sets;
        w.getRatio = ratio->gets;
    }
    if (isSet("key-pattern")) {
        if (auto checked = app::checkKeyPattern(opt("key-pattern")); !checked)
            return checked.error().prefixed(QStringLiteral("--key-pattern"));
        w.keyPattern = opt("key-pattern").trimmed().toUpper();
    }
    const uint64_t max64 = std::numeric_limits<uint64_t>::max();
    for (auto read :
         {readCount(parser, "key-minimum", 0, max64, w.keyMinimum),
          readCount(parser, "key-maximum", 0, max64, w.keyMaximum),
          readCount(parser, "d", 1, engine::MemcacheReplyParser::kMaxValueBytes, w.valueSize)}) {
        if (!read)
            return read;
    }
    if (isSet("key-prefix"))
        w.keyPrefix = opt("key-prefix");
    const auto readDouble = [&](const char* name) -> Result<double> {
        bool ok = false;
        const double value = opt(name).toDouble(&ok);
        if (!ok || value < 0)
            return invalidInput(QStringLiteral("--%1 wants a non-negative number, not '%2'")
                                    .arg(QLatin1String(name), opt(name)));
        return value;
    };
    if (isSet("key-stddev")) {
        const auto stddev = readDouble("key-stddev");
        if (!stddev)
            return stddev.error();
        w.keyStddev = *stddev;
    }
    if (isSet("key-median")) {
        const auto median = readDouble("key-median");
        if (!median)
            return median.error();
        w.keyMedian = *median;
    }
    return {};
}

// memtier's --command, --command-ratio and --command-key-pattern: the last two
// apply to the --command before them, so their order matters.
Result<std::vector<app::RedisCommand>> readRedisCommands(const QCommandLineParser& parser) {
    std::vector<app::RedisCommand> commands;
    const QStringList texts = parser.values(QStringLiteral("command"));
    const QStringList ratios = parser.values(QStringLiteral("command-ratio"));
    const QStringList patterns = parser.values(QStringLiteral("command-key-pattern"));
    qsizetype ratio = 0;
    qsizetype pattern = 0;
    for (const QString& name : parser.optionNames()) {
        if (name == QLatin1String("command")) {
            commands.push_back(
                app::RedisCommand{texts.at(qsizetype(commands.size())), 1, QStringLiteral("R")});
            continue;
        }
        const bool isRatio = name == QLatin1String("command-ratio");
        if (!isRatio && name != QLatin1String("command-key-pattern"))
            continue;
        if (commands.empty())
            return invalidInput(
                QStringLiteral("--%1 applies to a --command given before it").arg(name));
        if (isRatio) {
            const auto value = parseCount(QStringLiteral("--command-ratio"), ratios.at(ratio++), 1,
                                          app::kMaxRedisCommandRatio);
            if (!value)
                return value.error();
            commands.back().ratio = int(*value);
        } else {
            commands.back().keyPattern = patterns.at(pattern++).trimmed().toUpper();
        }
    }
    for (const app::RedisCommand& command : commands)
        if (auto checked = app::checkRedisCommand(command); !checked)
            return checked.error().prefixed(QStringLiteral("--command"));
    return commands;
}

Result<MemcacheInvocation> readMemcacheInvocation(const QCommandLineParser& parser) {
    const auto isSet = [&](const char* name) {
        return parser.isSet(QLatin1String(name));
    };
    if (parser.positionalArguments().size() != 1)
        return invalidInput(QStringLiteral("expected exactly one HOST:PORT (see --help)"));
    app::Target target;
    target.name = QStringLiteral("memcache");
    target.protocol = app::TargetProtocol::Memcache;
    target.address = parser.positionalArguments().constFirst();
    if (auto endpoint = app::parseEndpoint(target.address); !endpoint)
        return endpoint.error();

    app::MemcacheRunSetup setup;
    setup.server = target.address;
    if (isSet("P")) {
        setup.protocol = parser.value(QStringLiteral("P")).trimmed().toLower();
        if (setup.protocol == QLatin1String("memcache_binary"))
            return invalidInput(QStringLiteral("-P memcache_binary is not supported: use "
                                               "memcache_text, redis, resp2 or resp3"));
        if (setup.protocol != QLatin1String("memcache_text") &&
            !app::checkRedisProtocol(setup.protocol))
            return invalidInput(QStringLiteral("-P wants memcache_text, redis, resp2 or resp3, "
                                               "not '%1'")
                                    .arg(parser.value(QStringLiteral("P"))));
    }
    const bool redis = app::isRedisRun(setup);
    auto commands = readRedisCommands(parser);
    if (!commands)
        return commands.error();
    setup.commands = std::move(*commands);
    if (!setup.commands.empty()) {
        if (!redis)
            return invalidInput(
                QStringLiteral("--command needs Redis: add -P redis, resp2 or resp3"));
        // As memtier: with arbitrary commands these say nothing, so they are refused.
        if (isSet("ratio"))
            return invalidInput(QStringLiteral("--ratio does not apply to --command: give "
                                               "each its --command-ratio"));
        if (isSet("key-pattern"))
            return invalidInput(QStringLiteral("--key-pattern does not apply to --command: "
                                               "give each its --command-key-pattern"));
    }
    if (redis) {
        target.name = QStringLiteral("redis");
        target.protocol = app::TargetProtocol::Redis;
        target.redis.protocol = setup.protocol;
        target.redis.commands = setup.commands;
    }
    setup.threads = kDefaultThreads;
    setup.clientsPerThread = kDefaultClients;
    for (auto read : {readCount(parser, "t", 1, 1024, setup.threads),
                      readCount(parser, "c", 1, kMaxConnections, setup.clientsPerThread),
                      readCount(parser, "pipeline", 1, 1024, setup.pipeline)}) {
        if (!read)
            return read.error();
    }
    const uint64_t connections = uint64_t(setup.threads) * setup.clientsPerThread;
    if (connections > kMaxConnections)
        return invalidInput(QStringLiteral("-c %1 x -t %2 is more than %3 connections")
                                .arg(setup.clientsPerThread)
                                .arg(setup.threads)
                                .arg(kMaxConnections));
    if (isSet("n") && isSet("test-time"))
        return invalidInput(
            QStringLiteral("-n/--requests and --test-time cannot be combined: give one"));
    if (isSet("timeout")) {
        const auto timeout = parsePositiveSeconds(QStringLiteral("--timeout"),
                                                  parser.value(QStringLiteral("timeout")));
        if (!timeout)
            return timeout.error();
        target.responseTimeoutSeconds = *timeout;
    }
    app::MemcacheOptions& workload = redis ? target.redis.workload : target.memcache;
    if (auto read = readWorkload(parser, workload); !read)
        return read.error();
    workload.pipeline = int(setup.pipeline);
    workload.preload = isSet("preload");

    MemcacheInvocation invocation{oneShotOf(std::move(target), int(connections)), {}, setup};
    app::SweepPlan& plan = invocation.shot.plan;
    if (isSet("test-time")) {
        const auto seconds = parsePositiveSeconds(QStringLiteral("--test-time"),
                                                  parser.value(QStringLiteral("test-time")));
        if (!seconds)
            return seconds.error();
        invocation.setup.testTimeSeconds = *seconds;
        plan.limit = app::PointLimit::Duration;
        plan.durationSeconds = *seconds;
    } else {
        invocation.setup.requestsPerClient = kDefaultRequests;
        if (auto read = readCount(parser, "n", 1, kMaxRequests / connections,
                                  invocation.setup.requestsPerClient);
            !read)
            return read.error();
        plan.limit = app::PointLimit::Requests;
        plan.requestsPerPoint = invocation.setup.requestsPerClient * connections;
    }
    auto output = readCommonRunOptions(parser, plan);
    if (!output)
        return output.error();
    invocation.output = *output;
    plan.threads = int(invocation.setup.threads);
    if (auto capacity = readCapacityOptions(parser, invocation.shot,
                                            {QStringLiteral("n"), QStringLiteral("test-time")});
        !capacity)
        return capacity.error();
    if (auto rate = readRateOptions(parser, invocation.shot); !rate)
        return rate.error();
    return invocation;
}

// Sets every key of the range once, unmeasured, with the builder's preload spec.
engine::RunResult preload(engine::LoadSpec spec, bool quiet, OneShotRunner& runner) {
    if (!quiet)
        std::fprintf(runner.io().err, "Preloading %llu keys\n",
                     static_cast<unsigned long long>(spec.requests));
    return runner.run(std::move(spec), true, true);
}

} // namespace

Result<OneShot> parseMemcacheOneShot(const QStringList& arguments) {
    return parseOneShot(addMemcacheOptions, readMemcacheInvocation, arguments);
}

int runMemcacheCommand(const QStringList& arguments, const CliIo& io) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    addMemcacheOptions(parser);
    auto prepared = prepareRun(parser, arguments, readMemcacheInvocation, io);
    if (const int* exit = std::get_if<int>(&prepared))
        return *exit;
    auto& [invocation, spec, preloadSpec] = std::get<1>(prepared);
    const app::Target& target = invocation.shot.target;
    app::MemcacheRunSetup& setup = invocation.setup;
    if (target.protocol == app::TargetProtocol::Redis) {
        auto workload = app::redisWorkload(target.redis, invocation.shot.concurrency());
        if (!workload) {
            printError(io, command, workload.error().message);
            return exitCodeFor(workload.error());
        }
        setup.workload = workload->workload;
    } else {
        auto workload = app::memcacheWorkload(target.memcache, invocation.shot.concurrency());
        if (!workload) {
            printError(io, command, workload.error().message);
            return exitCodeFor(workload.error());
        }
        setup.workload = *workload;
    }
    const OutputOptions& output = invocation.output;
    if (invocation.shot.plan.levelKind == app::SweepLevelKind::Capacity) {
        app::CliResultContext context;
        context.protocol = app::TargetProtocol::Memcache;
        context.memcache = setup;
        return runCapacitySearch(command, invocation.shot, spec, std::move(preloadSpec), output,
                                 context, io);
    }

    OneShotRunner runner(io, remoteLoadOf(invocation));
    if (preloadSpec) {
        const engine::RunResult loaded = preload(std::move(*preloadSpec), output.quiet, runner);
        if (loaded.unreachable) {
            printError(io, command, QString::fromStdString(loaded.firstError));
            return ExitUnreachable;
        }
        if (const int signal = runner.interruptingSignal()) {
            printError(io, command,
                       QStringLiteral("interrupted during the preload: nothing "
                                      "was measured"));
            return exitCodeForSignal(signal);
        }
        setup.preload = app::MemcachePreloadSummary{loaded.complete, loaded.durationSeconds,
                                                    loaded.failed, loaded.firstError};
        if (!output.quiet)
            std::fprintf(io.err, "Preloaded %llu keys in %.2f s\n",
                         static_cast<unsigned long long>(loaded.complete), loaded.durationSeconds);
    }
    if (!output.quiet)
        std::fprintf(io.err, "Benchmarking %s (be patient)\n", qPrintable(setup.server));
    app::MemcacheRunReport report;
    report.result = runner.run(spec, output.quiet);
    if (report.result.unreachable) {
        printError(io, command, QString::fromStdString(report.result.firstError));
        return ExitUnreachable;
    }
    report.errorReplies = app::foldErrorReplies(report.result);

    if (output.printsReport()) {
        std::fputs(qPrintable(app::formatMemtierReport(report, setup)), io.out);
        std::fflush(io.out);
    }
    const app::PointResult point = oneShotResult(report.result, invocation.shot);
    return finishRun(command, report.result, point, output,
                     app::memcacheResultJson(point, report.errorReplies, setup), runner);
}

} // namespace loadscope::cli
