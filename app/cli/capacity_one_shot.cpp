#include "app/cli/capacity_one_shot.h"

#include "app/cli/cli_common.h"
#include "app/cli/one_shot_runner.h"
#include "app/cli/stop_signals.h"
#include "app/common/json_bytes.h"
#include "app/report/fixed_rate_report.h"
#include "app/session/capacity_search.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/sweep/point_steps.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

namespace loadscope::cli {

using app::Result;

namespace {

const QStringList kObjectiveOptions{
    QStringLiteral("slo"),          QStringLiteral("max-failed"),
    QStringLiteral("min-achieved"), QStringLiteral("capacity-precision"),
    QStringLiteral("max-steps"),    QStringLiteral("min-step"),
    QStringLiteral("max-step"),
};

QString optionName(const QString& name) {
    return (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
}

QJsonValue optionalJson(const std::optional<double>& value) {
    return value ? QJsonValue(*value) : QJsonValue();
}

QJsonObject objectiveJson(const app::CapacityObjective& objective) {
    return {
        {QStringLiteral("percentile"), objective.percentile},
        {QStringLiteral("bound_ms"), objective.boundMs},
        {QStringLiteral("max_failed_percent"), optionalJson(objective.maxFailedPercent)},
        {QStringLiteral("min_achieved_percent"), optionalJson(objective.minAchievedPercent)},
        {QStringLiteral("text"), app::objectiveText(objective)},
    };
}

QJsonObject capacityJson(const OneShot& shot, const app::CapacitySearch& search, double probeRate,
                         const app::CliResultContext& context) {
    const app::SweepPlan& plan = shot.plan;
    QJsonArray steps;
    for (const app::CapacityStepRecord& step : search.steps) {
        QJsonObject result = app::cliResultJson(*step.result, context);
        app::addFixedRateJson(result, *step.result);
        steps.append(QJsonObject{
            {QStringLiteral("step"), step.number},
            {QStringLiteral("offered_rate"), step.rate},
            {QStringLiteral("verdict"), app::stepVerdictId(step.judgement.verdict)},
            {QStringLiteral("why"), step.judgement.why},
            {QStringLiteral("latency_at_objective_ms"), optionalJson(step.judgement.latencyMs)},
            {QStringLiteral("counted"),
             !step.inconsistent && !step.askedAgain &&
                 step.judgement.verdict != app::StepVerdict::ClientLimited},
            {QStringLiteral("result"), result},
        });
    }
    return {
        {QStringLiteral("rate"), optionalJson(search.capacity())},
        {QStringLiteral("lowest_missed_rate"), optionalJson(search.lowestMissedRate())},
        {QStringLiteral("bracket_percent"), optionalJson(search.bracketPercent())},
        {QStringLiteral("stopped"),
         search.stop ? app::capacityStopId(*search.stop) : QStringLiteral("interrupted")},
        {QStringLiteral("client_limited"), search.stop == app::CapacityStop::ClientLimited},
        {QStringLiteral("summary"), search.summary()},
        {QStringLiteral("objective"), objectiveJson(plan.capacity.objective)},
        {QStringLiteral("connections"), plan.rateConnections},
        {QStringLiteral("precision_percent"), plan.capacity.precisionPercent},
        {QStringLiteral("max_steps"), plan.capacity.maxSteps},
        {QStringLiteral("probe_requests_per_second"), probeRate},
        {QStringLiteral("steps"), steps},
    };
}

QString padded(const QString& text, int width) {
    return text.rightJustified(width);
}

QString capacityReportText(const OneShot& shot, const app::CapacitySearch& search, double probeRate,
                           const QString& endpoint) {
    const app::SweepPlan& plan = shot.plan;
    const app::CapacityPlan& capacity = plan.capacity;
    const QString label = app::objectivePercentileLabel(capacity.objective.percentile);
    QString text = QStringLiteral("Capacity search of %1 at %2\n")
                       .arg(endpoint, app::objectiveText(capacity.objective));
    text += QStringLiteral("Load: %1 connections, %2 arrival, warm-up %3 s per step; each step "
                           "long enough for %4 requests beyond %5 (%6 s to %7 s); until within "
                           "%8 % or %9 steps\n")
                .arg(plan.rateConnections)
                .arg(app::arrivalId(plan.arrival))
                .arg(plan.warmupSeconds)
                .arg(app::kCapacityTailSamples)
                .arg(label)
                .arg(capacity.minStepSeconds)
                .arg(capacity.maxStepSeconds)
                .arg(capacity.precisionPercent)
                .arg(capacity.maxSteps);
    text += QStringLiteral("Probe: closed loop for %1 s: %2 req/s\n\n")
                .arg(capacity.minStepSeconds)
                .arg(app::formatFigure(probeRate));
    text += QStringLiteral("%1  %2  %3  %4  %5  %6  Verdict\n")
                .arg(padded(QStringLiteral("Step"), 4), padded(QStringLiteral("Offered/s"), 11),
                     padded(QStringLiteral("Achieved/s"), 11),
                     padded(label + QStringLiteral(" ms"), 10),
                     padded(QStringLiteral("Failed %"), 8), padded(QStringLiteral("Seconds"), 7));
    for (const app::CapacityStepRecord& step : search.steps) {
        const app::StepJudgement& judged = step.judgement;
        QString verdict = app::stepVerdictId(judged.verdict);
        if (judged.verdict != app::StepVerdict::Met)
            verdict += QStringLiteral(": ") + judged.why;
        if (step.inconsistent)
            verdict += QStringLiteral(" (above a miss: not counted)");
        if (step.askedAgain)
            verdict += QStringLiteral(" (asked again)");
        text +=
            QStringLiteral("%1  %2  %3  %4  %5  %6  %7\n")
                .arg(padded(QString::number(step.number), 4),
                     padded(QString::number(step.rate, 'f', 1), 11),
                     padded(QString::number(step.result->requestsPerSecond(), 'f', 1), 11),
                     padded(judged.latencyMs ? QString::number(*judged.latencyMs, 'f', 3)
                                             : QStringLiteral("-"),
                            10),
                     padded(judged.failedPercent ? QString::number(*judged.failedPercent, 'f', 2)
                                                 : QStringLiteral("-"),
                            8),
                     padded(QString::number(step.result->durationSeconds, 'f', 2), 7), verdict);
    }
    text += QStringLiteral("\nCapacity at %1: %2\n")
                .arg(app::objectiveText(capacity.objective), search.summary());
    return text;
}

} // namespace

void addCapacityOptions(QCommandLineParser& parser) {
    parser.addOptions({
        {QStringLiteral("find-capacity"),
         QStringLiteral("Find the highest fixed rate that meets --slo: a short closed-loop probe "
                        "at -c connections, then fixed-rate steps (bisection) until the lowest "
                        "rate that missed is within --capacity-precision of the highest that "
                        "met.")},
        {QStringLiteral("slo"),
         QStringLiteral("--find-capacity's objective: a percentile (p50 to p99.99) of the "
                        "latency from each request's intended start, and its bound: p99=5ms."),
         QStringLiteral("pP=BOUND")},
        {QStringLiteral("max-failed"),
         QStringLiteral("--find-capacity: a step whose failed share exceeds PERCENT misses."),
         QStringLiteral("PERCENT")},
        {QStringLiteral("min-achieved"),
         QStringLiteral("--find-capacity: a step that achieved less than PERCENT of its "
                        "offered rate misses."),
         QStringLiteral("PERCENT")},
        {QStringLiteral("capacity-precision"),
         QStringLiteral("--find-capacity: stop once the lowest miss is within PERCENT of the "
                        "highest meet (default 5)."),
         QStringLiteral("PERCENT")},
        {QStringLiteral("max-steps"),
         QStringLiteral("--find-capacity: fixed-rate steps at most (default 12)."),
         QStringLiteral("N")},
        {QStringLiteral("min-step"),
         QStringLiteral("--find-capacity: the shortest step, and the probe's length "
                        "(default 1 s)."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("max-step"),
         QStringLiteral("--find-capacity: the longest step (default 30 s); a step lasts long "
                        "enough for ten requests beyond the percentile."),
         QStringLiteral("SECONDS")},
    });
}

Result<void> readCapacityOptions(const QCommandLineParser& parser, OneShot& shot,
                                 const QStringList& lengthOptions) {
    if (!parser.isSet(QStringLiteral("find-capacity"))) {
        for (const QString& name : kObjectiveOptions) {
            if (parser.isSet(name))
                return app::invalidInput(
                    QStringLiteral("%1 is an option of --find-capacity").arg(optionName(name)));
        }
        return {};
    }
    if (!parser.isSet(QStringLiteral("slo")))
        return app::invalidInput(
            QStringLiteral("--find-capacity needs its objective: --slo p99=5ms, say"));
    if (parser.isSet(QStringLiteral("rate")))
        return app::invalidInput(QStringLiteral(
            "--find-capacity chooses each step's rate: a fixed rate cannot be given with it"));
    for (const QString& name : lengthOptions) {
        if (parser.isSet(name))
            return app::invalidInput(
                QStringLiteral("--find-capacity chooses each step's length: %1 cannot be given "
                               "with it")
                    .arg(optionName(name)));
    }
    app::SweepPlan& plan = shot.plan;
    app::CapacityPlan& capacity = plan.capacity;
    auto objective = app::parseLatencyObjective(parser.value(QStringLiteral("slo")));
    if (!objective)
        return objective.error().prefixed(QStringLiteral("--slo"));
    capacity.objective = *objective;
    const auto percentage = [&](const char* name) -> Result<std::optional<double>> {
        const QString option = QLatin1String(name);
        if (!parser.isSet(option))
            return std::optional<double>();
        auto value = app::parsePercentage(optionName(option), parser.value(option));
        if (!value)
            return value.error();
        return std::optional<double>(*value);
    };
    auto failed = percentage("max-failed");
    if (!failed)
        return failed.error();
    capacity.objective.maxFailedPercent = *failed;
    auto achieved = percentage("min-achieved");
    if (!achieved)
        return achieved.error();
    capacity.objective.minAchievedPercent = *achieved;
    auto precision = percentage("capacity-precision");
    if (!precision)
        return precision.error();
    if (*precision)
        capacity.precisionPercent = **precision;
    if (parser.isSet(QStringLiteral("max-steps"))) {
        const auto steps =
            parseCount(QStringLiteral("--max-steps"), parser.value(QStringLiteral("max-steps")),
                       uint64_t(app::kMinCapacitySteps), uint64_t(app::kMaxCapacitySteps));
        if (!steps)
            return steps.error();
        capacity.maxSteps = int(*steps);
    }
    for (const auto& [name, seconds] : {std::pair{"min-step", &capacity.minStepSeconds},
                                        std::pair{"max-step", &capacity.maxStepSeconds}}) {
        const QString option = QLatin1String(name);
        if (!parser.isSet(option))
            continue;
        const auto value = parsePositiveSeconds(optionName(option), parser.value(option));
        if (!value)
            return value.error();
        *seconds = *value;
    }
    plan.levelKind = app::SweepLevelKind::Capacity;
    plan.rateConnections = shot.concurrency();
    // Checked whole here, so that the refusal names the capacity settings
    // rather than a spec built from them.
    if (auto checked = app::validateSweepPlan(plan); !checked)
        return checked.error();
    return {};
}

int runCapacitySearch(const QString& command, const OneShot& shot, const engine::LoadSpec& probe,
                      std::optional<engine::LoadSpec> preload, const OutputOptions& output,
                      const app::CliResultContext& context, const CliIo& io) {
    const app::SweepPlan& plan = shot.plan;
    OneShotRunner runner(io);
    if (preload) {
        if (!output.quiet)
            std::fprintf(io.err, "Preloading %llu keys\n",
                         static_cast<unsigned long long>(preload->requests));
        const engine::RunResult loaded = runner.run(std::move(*preload), true);
        if (loaded.unreachable) {
            printError(io, command, QString::fromStdString(loaded.firstError));
            return ExitUnreachable;
        }
    }
    const QString endpoint = context.url.isEmpty() ? shot.target.address : context.url;
    if (!output.quiet)
        std::fprintf(io.err, "Finding the capacity of %s at %s: a probe, then fixed-rate steps\n",
                     qPrintable(endpoint), qPrintable(app::objectiveText(plan.capacity.objective)));
    // Each run's own progress lines would bury the steps': one line per step instead.
    const engine::RunResult probed = runner.run(probe, true);
    if (probed.unreachable) {
        printError(io, command, QString::fromStdString(probed.firstError));
        return ExitUnreachable;
    }
    if (const int signal = runner.interruptingSignal()) {
        printError(io, command,
                   QStringLiteral("interrupted during the probe: nothing was measured"));
        return exitCodeForSignal(signal);
    }
    if (probed.successful() == 0) {
        printError(io, command,
                   QStringLiteral("the probe had no successful response: %1")
                       .arg(QString::fromStdString(probed.firstError)));
        return ExitUnreachable;
    }
    const double probeRate = probed.requestsPerSecond();
    if (!output.quiet)
        std::fprintf(io.err, "Probe: closed loop at %d connections: %.1f req/s\n",
                     plan.rateConnections, probeRate);

    std::vector<app::PointResult> stored;
    stored.reserve(size_t(app::kMaxCapacitySteps) + 1);
    const auto evaluate = [&] {
        std::vector<const app::PointResult*> steps;
        for (const app::PointResult& step : stored)
            steps.push_back(&step);
        return app::capacitySearch(plan, shot.target.id, 0, std::move(steps));
    };
    for (app::CapacitySearch search = evaluate(); !search.finished(); search = evaluate()) {
        app::SweepPoint point = shot.point();
        point.rate = stored.empty() ? app::firstCapacityStepRate(probeRate) : *search.nextRate;
        point.capacityStep = int(stored.size()) + 1;
        auto specs = app::pointSpecs(shot.target, point, plan, &probe.target);
        if (!specs) {
            printError(io, command, specs.error().message);
            return exitCodeFor(specs.error());
        }
        specs->draft.spec.serverCpu = probe.serverCpu;
        if (!output.quiet)
            std::fprintf(io.err, "Step %d: %.1f req/s for %.2f s\n", point.capacityStep, point.rate,
                         double(specs->draft.spec.duration.count()) / 1e9);
        const engine::RunResult ran = runner.run(std::move(specs->draft.spec), true);
        if (ran.unreachable) {
            printError(io, command, QString::fromStdString(ran.firstError));
            return ExitUnreachable;
        }
        if (runner.interruptingSignal())
            break; // a step cut short is no step
        stored.push_back(app::measuredPointResult(ran, point, plan, {}));
        if (!output.quiet) {
            const app::StepJudgement judged =
                app::judgeCapacityStep(stored.back(), plan.capacity.objective);
            std::fprintf(io.err, "Step %d: %s, %s\n", point.capacityStep,
                         qPrintable(app::stepVerdictId(judged.verdict)), qPrintable(judged.why));
        }
    }
    const app::CapacitySearch search = evaluate();

    if (output.printsReport()) {
        std::fputs(qPrintable(capacityReportText(shot, search, probeRate, endpoint)), io.out);
        std::fflush(io.out);
    }
    if (search.stop == app::CapacityStop::ClientLimited)
        std::fprintf(io.err,
                     "The client, not the server, was the limit: the capacity is not the "
                     "server's (more connections, threads or CPUs for the client may help)\n");
    if (!output.jsonPath.isEmpty()) {
        QJsonObject json{
            {QStringLiteral("capacity"), capacityJson(shot, search, probeRate, context)}};
        if (!context.url.isEmpty())
            json.insert(QStringLiteral("url"), context.url);
        else
            json.insert(QStringLiteral("server"), shot.target.address);
        if (auto written =
                writeOutput(output.jsonPath, app::jsonBytes(json, QJsonDocument::Indented), io);
            !written) {
            printError(io, command, written.error().toString());
            return ExitInternal;
        }
    }
    if (!output.csvPath.isEmpty()) {
        // The steps as the session's results CSV has them: a rate sweep to chart.
        app::Session steps;
        steps.targets.push_back(shot.target);
        steps.results = stored;
        if (auto written = writeOutput(output.csvPath, app::resultsCsv(steps), io); !written) {
            printError(io, command, written.error().toString());
            return ExitInternal;
        }
    }
    if (const int signal = runner.interruptingSignal()) {
        printError(io, command,
                   QStringLiteral("interrupted by %1 after %2 steps: the search did not finish")
                       .arg(QLatin1String(signal == SIGINT ? "SIGINT" : "SIGTERM"))
                       .arg(stored.size()));
        return exitCodeForSignal(signal);
    }
    return ExitOk;
}

} // namespace loadscope::cli
