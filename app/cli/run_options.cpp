#include "app/cli/run_options.h"

#include "app/cli/cli_common.h"
#include "app/cli/stop_signals.h"
#include "app/common/json_bytes.h"
#include "app/report/ab_report.h"
#include "app/report/agent_report.h"
#include "app/report/cpu_report.h"
#include "app/report/fixed_rate_report.h"
#include "app/report/net_report.h"
#include "app/report/profile_report.h"
#include "app/report/result_json.h"
#include "app/sweep/local_server_cpu.h"
#include "app/sweep/point_steps.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <chrono>
#include <cmath>
#include <csignal>

namespace loadscope::cli {

using app::Result;

void addCommonRunOptions(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Worker threads (default: number of cores); the connections "
                                     "are spread over them."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("cpus"),
                      QStringLiteral("Pin worker thread i to the i-th CPU of LIST, e.g. 0,2-3."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("warmup"),
                      QStringLiteral("Run this long before measuring; warm-up requests are not "
                                     "counted."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("json"),
                      QStringLiteral("Write the result as JSON to PATH (- for stdout)."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("csv"),
                      QStringLiteral("Write the result as one CSV row with a header to PATH."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("q"), QStringLiteral("Do not print progress on stderr.")});
    addCpuRunOptions(parser);
    addWakeCoalescingOption(parser);
    addProfileOptions(parser);
    addAgentsOptions(parser);
}

void addProfileOptions(QCommandLineParser& parser) {
    parser.addOption(
        {QStringLiteral("profile"),
         QStringLiteral("Sample every CPU over the measured window (perf events, ~1 kHz, call "
                        "chains) and report the CPU per request by process (client, server, "
                        "relay, other) and kernel path (TCP/IP, conntrack, NAT, bridge, ...). "
                        "Needs root or kernel.perf_event_paranoid <= 0.")});
    parser.addOption({QStringLiteral("folded"),
                      QStringLiteral("With a profile (implies --profile): write its call chains "
                                     "to PATH in the folded form FlameGraph and speedscope read."),
                      QStringLiteral("PATH")});
}

void addAgentsOptions(QCommandLineParser& parser) {
    parser.addOption(
        {QStringLiteral("agents"),
         QStringLiteral("Send the load from these hosts, comma-separated SSH destinations (a "
                        "Host of your ssh config or [user@]host[:port]) that run loadscope-cli: "
                        "the connections, a rate and -n split over them, all started together, "
                        "their results merged exactly."),
         QStringLiteral("LIST")});
    addHostOptions(parser);
}

void addWakeCoalescingOption(QCommandLineParser& parser) {
    parser.addOption(
        {QStringLiteral("no-wake-coalescing"),
         QStringLiteral("In a closed loop, wait for responses at once, as wrk does, instead of "
                        "first pausing 10-50 us while a busy server's responses come often "
                        "(so that its writes do not each wake the client at its expense).")});
}

void addCpuRunOptions(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("server-pid"),
                      QStringLiteral("The local server's process: its CPU per request is "
                                     "reported (default: the process listening on the "
                                     "target's loopback port, when visible)."),
                      QStringLiteral("PID")});
    parser.addOption({QStringLiteral("server-cgroup"),
                      QStringLiteral("The local server's cgroup directory (cpu.stat), e.g. a "
                                     "container's /sys/fs/cgroup/...; its CPU is the server's."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("noise-threshold"),
                      QStringLiteral("Mark the run noisy when other load exceeds this share of "
                                     "the machine (percent, default 10)."),
                      QStringLiteral("PERCENT")});
}

Result<OutputOptions> readCommonRunOptions(const QCommandLineParser& parser, app::SweepPlan& plan) {
    if (parser.isSet(QStringLiteral("threads"))) {
        const auto threads =
            parseCount(QStringLiteral("--threads"), parser.value(QStringLiteral("threads")), 1,
                       uint64_t(app::kMaxThreads));
        if (!threads)
            return threads.error();
        plan.threads = int(*threads);
    }
    if (parser.isSet(QStringLiteral("cpus"))) {
        auto cpus = parseCpusOption(parser.value(QStringLiteral("cpus")));
        if (!cpus)
            return cpus.error();
        plan.cpus = std::move(*cpus);
    }
    if (parser.isSet(QStringLiteral("warmup"))) {
        const auto warmup =
            parseSeconds(QStringLiteral("--warmup"), parser.value(QStringLiteral("warmup")));
        if (!warmup)
            return warmup.error();
        plan.warmupSeconds = *warmup;
    }
    OutputOptions options;
    if (parser.isSet(QStringLiteral("server-pid"))) {
        const auto pid = parseCount(QStringLiteral("--server-pid"),
                                    parser.value(QStringLiteral("server-pid")), 1, 1u << 22);
        if (!pid)
            return pid.error();
        options.serverCpu.pid = int(*pid);
        if (!QFileInfo::exists(QStringLiteral("/proc/%1/stat").arg(*pid)))
            return app::invalidInput(QStringLiteral("--server-pid %1: no such process").arg(*pid));
    }
    if (parser.isSet(QStringLiteral("server-cgroup"))) {
        const QString cgroup = parser.value(QStringLiteral("server-cgroup"));
        if (!QFileInfo::exists(cgroup + QStringLiteral("/cpu.stat")) &&
            !QFileInfo::exists(cgroup + QStringLiteral("/cpuacct.usage")))
            return app::invalidInput(
                QStringLiteral("--server-cgroup %1: no cpu.stat or cpuacct.usage there")
                    .arg(cgroup));
        options.serverCpu.cgroup = cgroup.toStdString();
    }
    if (parser.isSet(QStringLiteral("noise-threshold"))) {
        const auto threshold = parseNoiseThreshold(parser.value(QStringLiteral("noise-threshold")));
        if (!threshold)
            return threshold.error();
        plan.noiseThresholdPercent = *threshold;
    }
    plan.wakeCoalescing = !parser.isSet(QStringLiteral("no-wake-coalescing"));
    plan.profile =
        parser.isSet(QStringLiteral("profile")) || parser.isSet(QStringLiteral("folded"));
    options.foldedPath = parser.value(QStringLiteral("folded"));
    auto hostOptions = readHostOptions(parser);
    if (!hostOptions)
        return hostOptions.error();
    options.hostOptions = *hostOptions;
    if (parser.isSet(QStringLiteral("agents"))) {
        const QStringList destinations =
            parser.value(QStringLiteral("agents")).split(QLatin1Char(','), Qt::SkipEmptyParts);
        auto agents = hostsOfDestinations(destinations, options.hostOptions);
        if (!agents)
            return agents.error().prefixed(QStringLiteral("--agents"));
        if (agents->empty())
            return app::invalidInput(QStringLiteral("--agents names no host"));
        options.agents = std::move(*agents);
    }
    options.jsonPath = parser.value(QStringLiteral("json"));
    options.csvPath = parser.value(QStringLiteral("csv"));
    options.quiet = parser.isSet(QStringLiteral("q")) || !options.printsReport();
    return options;
}

void addRateOptions(QCommandLineParser& parser, bool shortFlag, bool hidden) {
    QStringList names{QStringLiteral("rate")};
    if (shortFlag)
        names.prepend(QStringLiteral("R"));
    QCommandLineOption rate(names,
                            QStringLiteral("Fixed rate: send N requests/s in total over all "
                                           "connections, each on a schedule; latency is from its "
                                           "intended start (corrected for coordinated omission). "
                                           "Default: closed loop."),
                            QStringLiteral("N"));
    QCommandLineOption arrival(QStringLiteral("arrival"),
                               QStringLiteral("Spacing of a fixed rate's requests: constant "
                                              "(wrk2, default) or poisson."),
                               QStringLiteral("MODEL"));
    QCommandLineOption slack(
        QStringLiteral("timer-slack"),
        QStringLiteral("At a fixed rate, send the requests due within USEC (0 to 1000) after "
                       "the one that is due with it, on one wake-up: each at most USEC early, "
                       "its latency from its send; fewer wake-ups, so less client CPU, and "
                       "arrivals bunched within USEC (1000: as wrk2's millisecond timers bunch "
                       "them). Default 0: each request at its own time."),
        QStringLiteral("USEC"));
    if (hidden) {
        rate.setFlags(QCommandLineOption::HiddenFromHelp);
        arrival.setFlags(QCommandLineOption::HiddenFromHelp);
        slack.setFlags(QCommandLineOption::HiddenFromHelp);
    }
    parser.addOption(rate);
    parser.addOption(arrival);
    parser.addOption(slack);
}

namespace {

// --find-capacity's steps are fixed-rate: their arrival and slack apply.
bool findsCapacity(const OneShot& shot) {
    return shot.plan.levelKind == app::SweepLevelKind::Capacity;
}

} // namespace

Result<void> readRateOptions(const QCommandLineParser& parser, OneShot& shot) {
    const QString name = parser.optionNames().contains(QStringLiteral("R"))
                             ? QStringLiteral("-R")
                             : QStringLiteral("--rate");
    if (parser.isSet(QStringLiteral("rate"))) {
        const QString text = parser.value(QStringLiteral("rate"));
        bool ok = false;
        const double rate = text.trimmed().toDouble(&ok);
        if (!ok || !app::checkRate(rate))
            return app::invalidInput(QStringLiteral("%1 wants requests/s from %2, not '%3'")
                                         .arg(name, app::rateRangeText(), text));
        shot.rate = rate;
    }
    if (parser.isSet(QStringLiteral("arrival"))) {
        const QString model = parser.value(QStringLiteral("arrival")).trimmed().toLower();
        if (model == u"constant")
            shot.plan.arrival = engine::Arrival::Constant;
        else if (model == u"poisson")
            shot.plan.arrival = engine::Arrival::Poisson;
        else
            return app::invalidInput(QStringLiteral("--arrival wants constant or poisson, not '%1'")
                                         .arg(parser.value(QStringLiteral("arrival"))));
        if (shot.rate <= 0 && !findsCapacity(shot))
            return app::invalidInput(QStringLiteral("--arrival needs a rate (%1)").arg(name));
    }
    if (parser.isSet(QStringLiteral("timer-slack"))) {
        const QString text = parser.value(QStringLiteral("timer-slack"));
        bool ok = false;
        const int slack = text.trimmed().toInt(&ok);
        if (!ok || slack < 0 || slack > app::kMaxTimerSlackUs)
            return app::invalidInput(
                QStringLiteral("--timer-slack wants microseconds from 0 to %1, not '%2'")
                    .arg(app::kMaxTimerSlackUs)
                    .arg(text));
        if (shot.rate <= 0 && !findsCapacity(shot))
            return app::invalidInput(QStringLiteral("--timer-slack needs a rate (%1)").arg(name));
        shot.plan.timerSlackUs = slack;
    }
    return {};
}

OneShot oneShotOf(app::Target target, int concurrency) {
    OneShot shot;
    shot.target = std::move(target);
    shot.plan.concurrencyLevels = {concurrency};
    shot.plan.repetitions = 1;
    shot.plan.threads = 0;
    return shot;
}

Result<app::PointSpecs> buildOneShotSpecs(const OneShot& shot) {
    // The sweep's steps for one point: the plan checked, the spec built to
    // find the endpoint, the endpoint resolved, the specs built for it.
    if (auto checked = app::validateSweepPlan(shot.plan); !checked)
        return checked.error();
    const app::SweepPoint point = shot.point();
    const auto checkedSpecs = app::pointSpecs(shot.target, point, shot.plan, nullptr);
    if (!checkedSpecs)
        return checkedSpecs.error();
    const app::LoadSpecDraft& draft = checkedSpecs->draft;
    if (auto limit = ensureFileLimit(uint64_t(draft.spec.concurrency) + 64); !limit)
        return limit.error();
    // A command line may block on a name lookup: nothing else waits for it.
    std::string resolveError;
    auto address = engine::resolveAddress(draft.endpoint.host.toStdString(), draft.endpoint.port,
                                          &resolveError);
    // Load from other hosts goes where their names resolve; this spec only
    // shapes the report, and is never run here.
    if (!address && !shot.target.loadFrom.empty())
        address = engine::resolveAddress("0.0.0.0", draft.endpoint.port, &resolveError);
    if (!address)
        return app::makeError(app::ErrorCode::Unreachable, QString::fromStdString(resolveError));
    auto specs = app::pointSpecs(shot.target, point, shot.plan, &*address);
    if (!specs)
        return specs.error();
    if (auto problem = engine::validateLoadSpec(specs->draft.spec))
        return app::invalidInput(QString::fromStdString(*problem));
    return specs;
}

Result<double> parseNoiseThreshold(const QString& text) {
    bool ok = false;
    const double threshold = text.toDouble(&ok);
    if (!ok || !(threshold >= 0 && threshold <= 100))
        return app::invalidInput(
            QStringLiteral("--noise-threshold is a percentage from 0 to 100, not '%1'").arg(text));
    return threshold;
}

engine::ServerCpuSource serverCpuFor(const OutputOptions& options,
                                     const engine::SocketAddress& target) {
    if (!options.serverCpu.empty())
        return options.serverCpu;
    return app::loopbackServerCpu(target);
}

app::PointResult oneShotResult(const engine::RunResult& run, const OneShot& shot) {
    return app::measuredPointResult(run, shot.point(), shot.plan, {});
}

Result<void> writeMachineOutputs(const OutputOptions& options, const QJsonObject& json,
                                 const CliIo& io) {
    if (!options.jsonPath.isEmpty()) {
        if (auto written =
                writeOutput(options.jsonPath, app::jsonBytes(json, QJsonDocument::Indented), io);
            !written)
            return written;
    }
    if (!options.csvPath.isEmpty())
        return writeOutput(options.csvPath, app::jsonToCsv(json), io);
    return {};
}

Result<void> parseForOneShot(QCommandLineParser& parser, const QStringList& arguments) {
    if (!parser.parse(arguments))
        return app::invalidInput(parser.errorText() + QStringLiteral(" (see --help)"));
    if (parser.isSet(QStringLiteral("help")))
        return app::invalidInput(QStringLiteral("--help runs nothing"));
    return {};
}

int finishRun(const QString& command, const engine::RunResult& result,
              const app::PointResult& point, const OutputOptions& output, const QJsonObject& json,
              const OneShotRunner& runner) {
    const CliIo& io = runner.io();
    if (output.printsReport() && result.offeredRate > 0) {
        std::fputs(qPrintable(app::formatFixedRateReport(result)), io.out);
        std::fflush(io.out);
    }
    const std::vector<app::AgentShare> agents = runner.hostShares();
    if (output.printsReport()) {
        std::fputs(qPrintable(app::formatAgentShares(agents)), io.out);
        std::fputs(qPrintable(app::formatCpuBlock(point)), io.out);
        std::fputs(qPrintable(app::formatProfileBlock(point)), io.out);
        std::fputs(qPrintable(app::formatNetBlock(point)), io.out);
        std::fputs(qPrintable(QLatin1Char('\n') + app::oneShotAdvice(point)), io.out);
        std::fflush(io.out);
    }
    // Refused (unprivileged, a paranoid kernel, a user namespace): the run went
    // on without it, and one line says why and what to set.
    if (point.profile && !point.profile->taken())
        std::fprintf(io.err, "no CPU profile: %s\n", qPrintable(point.profile->unavailable));
    // A client behind its schedule says why; the CPU warning would say less.
    QString warning = app::scheduleWarning(result);
    if (warning.isEmpty())
        warning = app::saturationWarning(result);
    if (!warning.isEmpty())
        std::fprintf(io.err, "%s\n", qPrintable(warning));
    QJsonObject written = json;
    app::addFixedRateJson(written, point);
    if (!agents.empty())
        written.insert(QStringLiteral("agents"), app::agentSharesCliJson(agents));
    if (auto done = writeMachineOutputs(output, written, io); !done) {
        printError(io, command, done.error().toString());
        return ExitInternal;
    }
    if (!output.foldedPath.isEmpty() && result.profile.sampled()) {
        // Every call chain the engine kept, not the few a session keeps.
        if (auto done =
                writeOutput(output.foldedPath, app::foldedStacks(result.profile).toUtf8(), io);
            !done) {
            printError(io, command, done.error().toString());
            return ExitInternal;
        }
    }
    // A signal that came after the run had ended by its own bounds cut
    // nothing short: the run is complete, and so is the command.
    if (const int signal = runner.interruptingSignal(); signal != 0 && result.cancelled) {
        printError(io, command,
                   QStringLiteral("interrupted by %1: the report covers the %2 s that ran")
                       .arg(QLatin1String(signal == SIGINT ? "SIGINT" : "SIGTERM"))
                       .arg(result.durationSeconds, 0, 'f', 2));
        return exitCodeForSignal(signal);
    }
    return ExitOk;
}

void addTlsClientOptions(QCommandLineParser& parser, const QString& scope,
                         const QString& insecureNote) {
    parser.addOptions({
        {QStringLiteral("insecure"),
         QStringLiteral("%1: accept any server certificate (curl -k%2).").arg(scope, insecureNote)},
        {QStringLiteral("cacert"),
         QStringLiteral("%1: verify against the CA certificates in FILE, not the system's.")
             .arg(scope),
         QStringLiteral("file")},
        {QStringLiteral("cert"), QStringLiteral("%1: client certificate (PEM).").arg(scope),
         QStringLiteral("file")},
        {QStringLiteral("key"),
         QStringLiteral("%1: the client certificate's key (default: in --cert).").arg(scope),
         QStringLiteral("file")},
        {QStringLiteral("no-tls-resume"),
         QStringLiteral("%1: a full handshake on every connection, no session resumption.")
             .arg(scope)},
        {QStringLiteral("tls-version"),
         QStringLiteral("%1: offer only TLS 1.2 or only 1.3 (default: either).").arg(scope),
         QStringLiteral("1.2|1.3")},
    });
}

QStringList tlsClientOptionsSet(const QCommandLineParser& parser) {
    QStringList set;
    for (const char* name : {"insecure", "cacert", "cert", "key", "no-tls-resume", "tls-version"})
        if (parser.isSet(QLatin1String(name)))
            set.append(QStringLiteral("--") + QLatin1String(name));
    return set;
}

} // namespace loadscope::cli
