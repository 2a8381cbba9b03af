#pragma once

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/host_options.h"
#include "app/cli/one_shot.h"
#include "app/cli/one_shot_runner.h"
#include "app/common/result.h"
#include "app/session/point_result.h"
#include "app/sweep/point_steps.h"
#include "engine/load_spec.h"
#include "engine/run_result.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>
#include <optional>
#include <variant>

// The steps every load command shares: the common options, build, run, write.
namespace loadscope::cli {

// Where the result goes: --json, --csv, -q.
struct OutputOptions {
    QString jsonPath;
    QString csvPath;
    QString foldedPath; // --folded: the profile's call chains, FlameGraph's folded form
    bool quiet = false;
    // --server-pid, --server-cgroup: whose CPU is the server's. Empty: the
    // process listening on the target's loopback port, when there is one.
    engine::ServerCpuSource serverCpu;
    // --agents: the hosts whose agents send the load, over ssh, their results
    // merged; empty: this process sends it.
    std::vector<app::Host> agents;
    HostOptions hostOptions;

    // The human report goes to stdout unless JSON or CSV does.
    bool printsReport() const {
        return jsonPath != QLatin1String("-") && csvPath != QLatin1String("-");
    }
};

// --threads, --cpus, --warmup, --json, --csv, -q, --server-pid, --server-cgroup,
// --noise-threshold, --no-wake-coalescing, --profile, --folded.
void addCommonRunOptions(QCommandLineParser& parser);
// --server-pid, --server-cgroup, --noise-threshold alone (for a command that
// declares the others itself).
void addCpuRunOptions(QCommandLineParser& parser);
// --no-wake-coalescing (engine::LoadSpec::wakeCoalescing), which
// readCommonRunOptions reads.
void addWakeCoalescingOption(QCommandLineParser& parser);
// --profile and --folded (engine::LoadSpec::profile), which readCommonRunOptions reads.
void addProfileOptions(QCommandLineParser& parser);
// --agents LIST with the host options (host_options.h), which
// readCommonRunOptions reads: the load sent from other hosts over ssh.
void addAgentsOptions(QCommandLineParser& parser);
// --threads, --cpus, --warmup, --noise-threshold, --no-wake-coalescing and
// --profile into `plan`; the rest into the result.
app::Result<OutputOptions> readCommonRunOptions(const QCommandLineParser& parser,
                                                app::SweepPlan& plan);

// --rate (with -R as well when `shortFlag`, wrk2's) and --arrival; left out
// of the help when `hidden` (a command that refuses them, in the engine's words).
void addRateOptions(QCommandLineParser& parser, bool shortFlag, bool hidden = false);
// Them into `shot`: a rate above 0 requests/s, an arrival model by name
// (with a rate, or in a capacity search: read after readCapacityOptions()).
app::Result<void> readRateOptions(const QCommandLineParser& parser, OneShot& shot);

// The TLS client options of http (https URLs) and tcp-rr --tls: --insecure, --cacert, --cert,
// --key, --no-tls-resume, --tls-version. `scope` begins each help line ("https"); `insecureNote`
// ends --insecure's, e.g. "; -k is keep-alive here".
void addTlsClientOptions(QCommandLineParser& parser, const QString& scope,
                         const QString& insecureNote = {});
// Those of them that are set, as "--name" (for a command that refuses them without TLS).
QStringList tlsClientOptionsSet(const QCommandLineParser& parser);
// Them into the tls* fields of `options`, HttpOptions or TcpRrOptions, which share their names.
template <typename Options>
void readTlsClientOptions(const QCommandLineParser& parser, Options& options) {
    options.tlsInsecure = parser.isSet(QStringLiteral("insecure"));
    options.tlsCaFile = parser.value(QStringLiteral("cacert"));
    options.tlsCertFile = parser.value(QStringLiteral("cert"));
    options.tlsKeyFile = parser.value(QStringLiteral("key"));
    options.tlsResume = !parser.isSet(QStringLiteral("no-tls-resume"));
    options.tlsVersion = parser.value(QStringLiteral("tls-version"));
}

// A OneShot with its one level and one repetition.
OneShot oneShotOf(app::Target target, int concurrency);

// The specs of the one point as a sweep builds them (app::pointSpecs), the
// open-file limit raised for its connections and the address resolved
// (ErrorCode::Unreachable for a name that does not resolve); refused when the
// engine would refuse the measured spec.
app::Result<app::PointSpecs> buildOneShotSpecs(const OneShot& shot);

// --noise-threshold's PERCENT, 0 to 100.
app::Result<double> parseNoiseThreshold(const QString& text);

// The server whose CPU a run on loopback measures: the one given, or else the
// process listening on the target's port (not this one), or none.
engine::ServerCpuSource serverCpuFor(const OutputOptions& options,
                                     const engine::SocketAddress& target);

// The run as a sweep keeps its point (app::measuredPointResult).
app::PointResult oneShotResult(const engine::RunResult& run, const OneShot& shot);

// Writes --json and --csv when asked.
app::Result<void> writeMachineOutputs(const OutputOptions& options, const QJsonObject& json,
                                      const CliIo& io);

// Parses `arguments` with `parser` for parseXxxOneShot(): a parse error or
// --help as an error, nothing printed.
app::Result<void> parseForOneShot(QCommandLineParser& parser, const QStringList& arguments);

// parseXxxOneShot(): the options `addOptions` declares, parsed, read by
// `read` into the command's invocation, whose OneShot is returned.
template <typename Invocation>
app::Result<OneShot> parseOneShot(void (*addOptions)(QCommandLineParser&),
                                  app::Result<Invocation> (*read)(const QCommandLineParser&),
                                  const QStringList& arguments) {
    QCommandLineParser parser;
    addOptions(parser);
    if (auto parsed = parseForOneShot(parser, arguments); !parsed)
        return parsed.error();
    auto invocation = read(parser);
    if (!invocation)
        return invocation.error();
    return invocation->shot;
}

// The first steps of every load command: the options parsed (--help and a
// usage error answered on `io`), the invocation read by `read`, its OneShot's
// spec built. Either the exit status to return at once, or both.
template <typename Invocation> struct PreparedRun {
    Invocation invocation;
    engine::LoadSpec spec;
    std::optional<engine::LoadSpec> preload; // a memcache target's, when it asks for one
};
template <typename Invocation>
std::variant<int, PreparedRun<Invocation>>
prepareRun(QCommandLineParser& parser, const QStringList& arguments,
           app::Result<Invocation> (*read)(const QCommandLineParser&), const CliIo& io) {
    const QString command = arguments.value(0);
    if (auto exit = parseOrExit(parser, arguments, io))
        return *exit;
    auto invocation = read(parser);
    if (!invocation) {
        printError(io, command, invocation.error().message);
        return int(ExitUsage);
    }
    for (const app::Host& host : invocation->output.agents)
        invocation->shot.target.loadFrom.push_back(host.name);
    auto specs = buildOneShotSpecs(invocation->shot);
    if (!specs) {
        printError(io, command, specs.error().message);
        return exitCodeFor(specs.error());
    }
    engine::LoadSpec& spec = specs->draft.spec;
    // Load from other hosts: a loopback address is theirs, not this machine's.
    if (invocation->output.agents.empty())
        spec.serverCpu = serverCpuFor(invocation->output, spec.target);
    return PreparedRun<Invocation>{std::move(*invocation), std::move(spec),
                                   std::move(specs->preload)};
}

// The last steps: a fixed-rate run's section of the report (after the
// command's own), the saturation warning on io.err, then --json and --csv
// (with the fixed-rate keys added to `json`). `json` is the command's own, its
// made of `point` (oneShotResult() of `result`). `runner` ran it and says
// whether a signal cut it short. The exit status of the command.
int finishRun(const QString& command, const engine::RunResult& result,
              const app::PointResult& point, const OutputOptions& output, const QJsonObject& json,
              const OneShotRunner& runner);

} // namespace loadscope::cli
