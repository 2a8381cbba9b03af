// SweepRunner's capacity plans: one search per target and repetition
// (capacity_search.h has the method), its steps run and stored as points.
#include "app/session/capacity_search.h"
#include "app/session/session_document.h"
#include "app/sweep/point_run.h"
#include "app/sweep/sweep_runner.h"
#include "app/sweep/sweep_runner_detail.h"

namespace loadscope::app {

using namespace sweep_detail;

namespace {

QString rateText(double rate) {
    return QString::number(rate, 'f', rate >= 100 ? 0 : 2) + QStringLiteral(" req/s");
}

// The search as the steps stored so far make it.
CapacitySearch storedSearch(const Session& sweepSession, const Session& current,
                            const SweepPoint& search) {
    std::vector<const PointResult*> steps;
    for (const PointResult& result : current.results) {
        if (result.capacityStep > 0 && !result.cancelled && result.targetId == search.targetId &&
            result.repetition == search.repetition && result.concurrency == search.concurrency &&
            result.levelRate() > 0)
            steps.push_back(&result);
    }
    return capacitySearch(sweepSession.plan, search.targetId, search.repetition, std::move(steps));
}

// "between 8400 req/s (met) and 10000 req/s (missed)", or what is known yet.
QString bracketText(const CapacitySearch& search) {
    const auto met = search.capacity();
    const auto missed = search.lowestMissedRate();
    if (met && missed)
        return QStringLiteral("between %1 (met) and %2 (missed)")
            .arg(rateText(*met), rateText(*missed));
    if (met)
        return QStringLiteral("met up to %1").arg(rateText(*met));
    if (missed)
        return QStringLiteral("missed down to %1").arg(rateText(*missed));
    return QStringLiteral("after the probe");
}

} // namespace

QCoro::Task<SweepRunner::Ended> SweepRunner::runSearches(Sweep& sweep) {
    for (const SweepPoint& search : sweep.missing) {
        if (auto ended = interrupted(sweep))
            co_return ended;
        if (auto ended = co_await runSearch(sweep, search))
            co_return ended;
    }
    co_return std::nullopt;
}

QCoro::Task<std::variant<SweepRunner::Ended, double>>
SweepRunner::probeCapacity(Sweep& sweep, const SweepPoint& search) {
    const Target* target = sweep.session.findTarget(search.targetId);
    const SweepPlan plan = pointPlan(sweep.session.plan, search);
    const engine::SocketAddress address = sweep.addresses.value(target->id);
    auto specs = pointSpecs(*target, search, plan, &address);
    if (!specs)
        co_return failed(sweep.outcome,
                         QStringLiteral("%1: %2").arg(targetLabel(*target), specs.error().message));
    if (specs->preload && !sweep.preloaded.contains(target->id)) {
        if (auto ended = co_await preload(sweep, *target, std::move(*specs->preload)))
            co_return ended;
    }
    Q_EMIT statusChanged(
        QStringLiteral("%1, search %2: probing with a closed loop at %3 connections for %4 s")
            .arg(target->displayName())
            .arg(search.repetition + 1)
            .arg(search.concurrency)
            .arg(plan.durationSeconds));
    // Not a conditional expression: GCC mishandles a co_await inside one.
    Result<engine::RunResult> probed = engine::RunResult{};
    if (m_runSource) {
        probed = m_runSource(specs->draft.spec, search);
    } else {
        Result<PointRun*> run =
            newPointRun(sweep.agent, {*target, plan, search.concurrency, 0, false},
                        std::move(specs->draft.spec));
        if (!run)
            co_return failed(sweep.outcome, QStringLiteral("%1: %2").arg(targetLabel(*target),
                                                                         run.error().message));
        probed = co_await runEngine(*run, std::nullopt);
    }
    if (auto ended = interrupted(sweep, probed && probed->cancelled))
        co_return ended;
    const QString why = !probed               ? probed.error().message
                        : probed->unreachable ? QString::fromStdString(probed->firstError)
                        : probed->successful() == 0
                            ? QStringLiteral("no successful response (%1)")
                                  .arg(QString::fromStdString(probed->firstError))
                            : QString();
    if (!why.isEmpty())
        co_return unreachable(
            sweep.outcome,
            QStringLiteral("%1: the capacity probe failed: %2").arg(targetLabel(*target), why));
    co_return probed->requestsPerSecond();
}

QCoro::Task<SweepRunner::Ended> SweepRunner::runSearch(Sweep& sweep, const SweepPoint& search) {
    const Target* target = sweep.session.findTarget(search.targetId);
    const QString name =
        QStringLiteral("%1, search %2").arg(target->displayName()).arg(search.repetition + 1);
    std::optional<double> probeRate;
    size_t stepsBefore = 0;
    for (bool first = true;; first = false) {
        if (!m_document)
            co_return interrupted(sweep);
        const CapacitySearch state = storedSearch(sweep.session, m_document->session(), search);
        if (state.finished()) {
            Q_EMIT statusChanged(QStringLiteral("%1: capacity %2").arg(name, state.summary()));
            co_return std::nullopt;
        }
        // A step that stored nothing (its target was removed) would repeat forever.
        if (!first && state.steps.size() <= stepsBefore)
            co_return std::nullopt;
        stepsBefore = state.steps.size();
        double rate = 0;
        if (state.steps.empty()) {
            if (!probeRate) {
                const auto probed = co_await probeCapacity(sweep, search);
                if (const Ended* ended = std::get_if<Ended>(&probed); ended && *ended)
                    co_return *ended;
                probeRate = std::get<double>(probed);
            }
            rate = firstCapacityStepRate(*probeRate);
        } else {
            rate = *state.nextRate;
        }
        SweepPoint step = search;
        step.rate = rate;
        step.capacityStep = state.steps.empty() ? 1 : state.steps.back().number + 1;
        const double pauseSeconds = sweep.session.plan.pauseSeconds;
        if (sweep.pointsStarted > 0 && pauseSeconds > 0 && !interrupted(sweep)) {
            Q_EMIT statusChanged(QStringLiteral("pausing %1 s").arg(pauseSeconds));
            co_await pause(pauseSeconds);
        }
        if (auto ended = interrupted(sweep))
            co_return ended;
        Q_EMIT statusChanged(
            QStringLiteral("%1: step %2 at %3, %4 s (%5)")
                .arg(name)
                .arg(step.capacityStep)
                .arg(rateText(rate))
                .arg(capacityStepSeconds(sweep.session.plan.capacity, rate), 0, 'f', 1)
                .arg(bracketText(state)));
        ++sweep.pointsStarted;
        if (auto ended = co_await runPoint(sweep, step))
            co_return ended;
    }
}

} // namespace loadscope::app
