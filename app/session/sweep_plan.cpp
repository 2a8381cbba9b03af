#include "app/session/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace loadscope::app {

QString sweepOrderId(SweepOrder order) {
    return order == SweepOrder::Interleaved ? QStringLiteral("interleaved")
                                            : QStringLiteral("sequential");
}

std::optional<SweepOrder> sweepOrderFromId(QStringView id) {
    if (id == u"interleaved")
        return SweepOrder::Interleaved;
    if (id == u"sequential")
        return SweepOrder::Sequential;
    return std::nullopt;
}

QString pointLimitId(PointLimit limit) {
    return limit == PointLimit::Requests ? QStringLiteral("requests") : QStringLiteral("duration");
}

std::optional<PointLimit> pointLimitFromId(QStringView id) {
    if (id == u"requests")
        return PointLimit::Requests;
    if (id == u"duration")
        return PointLimit::Duration;
    return std::nullopt;
}

QString sweepLevelKindId(SweepLevelKind kind) {
    switch (kind) {
    case SweepLevelKind::Rate:
        return QStringLiteral("rate");
    case SweepLevelKind::Capacity:
        return QStringLiteral("capacity");
    case SweepLevelKind::Concurrency:
        break;
    }
    return QStringLiteral("concurrency");
}

std::optional<SweepLevelKind> sweepLevelKindFromId(QStringView id) {
    if (id == u"concurrency")
        return SweepLevelKind::Concurrency;
    if (id == u"rate")
        return SweepLevelKind::Rate;
    if (id == u"capacity")
        return SweepLevelKind::Capacity;
    return std::nullopt;
}

QString arrivalId(engine::Arrival arrival) {
    return arrival == engine::Arrival::Poisson ? QStringLiteral("poisson")
                                               : QStringLiteral("constant");
}

std::optional<engine::Arrival> arrivalFromId(QStringView id) {
    if (id == u"constant")
        return engine::Arrival::Constant;
    if (id == u"poisson")
        return engine::Arrival::Poisson;
    return std::nullopt;
}

QString rateRangeText() {
    return QStringLiteral("%1 to %2").arg(kMinRate).arg(kMaxRate, 0, 'f', 0);
}

Result<void> checkRate(double rate) {
    if (std::isfinite(rate) && rate >= kMinRate && rate <= kMaxRate)
        return {};
    return invalidInput(
        QStringLiteral("rate %1 req/s is out of range (%2)").arg(rate).arg(rateRangeText()));
}

Result<void> checkSeconds(const QString& what, double seconds, double minimum) {
    if (std::isfinite(seconds) && seconds >= minimum && seconds <= kMaxSeconds)
        return {};
    return invalidInput(QStringLiteral("%1 is %2 s, expected %3 to %4 s")
                            .arg(what)
                            .arg(seconds)
                            .arg(minimum)
                            .arg(kMaxSeconds, 0, 'f', 0));
}

namespace {

Result<void> validateConcurrencyLevels(const std::vector<int>& levels) {
    if (levels.empty())
        return invalidInput(QStringLiteral("the sweep has no concurrency levels"));
    std::set<int> seen;
    for (int level : levels) {
        if (level < 1 || level > kMaxConcurrency)
            return invalidInput(QStringLiteral("concurrency %1 is out of range (1 to %2)")
                                    .arg(level)
                                    .arg(kMaxConcurrency));
        if (!seen.insert(level).second)
            return invalidInput(QStringLiteral("concurrency %1 is listed twice").arg(level));
    }
    return {};
}

Result<void> validateConnections(const SweepPlan& plan) {
    if (plan.rateConnections < 1 || plan.rateConnections > kMaxConcurrency)
        return invalidInput(QStringLiteral("connections %1 is out of range (1 to %2)")
                                .arg(plan.rateConnections)
                                .arg(kMaxConcurrency));
    return {};
}

Result<void> validateCapacityPlan(const SweepPlan& plan) {
    const CapacityPlan& capacity = plan.capacity;
    if (auto objective = validateCapacityObjective(capacity.objective); !objective)
        return objective;
    if (!(std::isfinite(capacity.precisionPercent) &&
          capacity.precisionPercent >= kMinCapacityPrecisionPercent &&
          capacity.precisionPercent <= kMaxCapacityPrecisionPercent))
        return invalidInput(QStringLiteral("the capacity search's precision must be %1 to %2 %")
                                .arg(kMinCapacityPrecisionPercent)
                                .arg(kMaxCapacityPrecisionPercent));
    if (capacity.maxSteps < kMinCapacitySteps || capacity.maxSteps > kMaxCapacitySteps)
        return invalidInput(QStringLiteral("a capacity search takes %1 to %2 steps, not %3")
                                .arg(kMinCapacitySteps)
                                .arg(kMaxCapacitySteps)
                                .arg(capacity.maxSteps));
    const auto inRange = [](double seconds) {
        return std::isfinite(seconds) && seconds >= kMinCapacityStepSeconds &&
               seconds <= kMaxCapacityStepSeconds;
    };
    if (!inRange(capacity.minStepSeconds) || !inRange(capacity.maxStepSeconds))
        return invalidInput(QStringLiteral("a capacity step lasts %1 s to %2 s")
                                .arg(kMinCapacityStepSeconds)
                                .arg(kMaxCapacityStepSeconds));
    if (capacity.maxStepSeconds < capacity.minStepSeconds)
        return invalidInput(QStringLiteral("the longest capacity step (%1 s) is shorter than "
                                           "the shortest (%2 s)")
                                .arg(capacity.maxStepSeconds)
                                .arg(capacity.minStepSeconds));
    return validateConnections(plan);
}

Result<void> validateRateLevels(const SweepPlan& plan) {
    if (plan.rateLevels.empty())
        return invalidInput(QStringLiteral("the sweep has no rate levels"));
    std::set<double> seen;
    for (double rate : plan.rateLevels) {
        if (auto checked = checkRate(rate); !checked)
            return checked;
        if (!seen.insert(rate).second)
            return invalidInput(QStringLiteral("rate %1 req/s is listed twice").arg(rate));
    }
    return validateConnections(plan);
}

} // namespace

Result<void> validateSweepPlan(const SweepPlan& plan) {
    // Only the levels of the plan's kind run; the others are kept for when
    // the user switches back.
    const Result<void> levels = plan.levelKind == SweepLevelKind::Rate ? validateRateLevels(plan)
                                : plan.levelKind == SweepLevelKind::Capacity
                                    ? validateCapacityPlan(plan)
                                    : validateConcurrencyLevels(plan.concurrencyLevels);
    if (!levels)
        return levels;
    if (plan.limit == PointLimit::Requests && plan.requestsPerPoint == 0)
        return invalidInput(QStringLiteral("requests per point must be at least 1"));
    if (plan.limit == PointLimit::Duration &&
        !(std::isfinite(plan.durationSeconds) && plan.durationSeconds > 0))
        return invalidInput(QStringLiteral("duration per point must be more than 0 s"));
    if (plan.limit == PointLimit::Duration)
        if (auto checked = checkSeconds(QStringLiteral("duration per point"), plan.durationSeconds,
                                        kMinSeconds);
            !checked)
            return checked;
    if (plan.timerSlackUs < 0 || plan.timerSlackUs > kMaxTimerSlackUs)
        return invalidInput(QStringLiteral("timer slack must be 0 to %1 us").arg(kMaxTimerSlackUs));
    if (plan.repetitions < 1 || plan.repetitions > kMaxRepetitions)
        return invalidInput(QStringLiteral("repetitions must be 1 to %1").arg(kMaxRepetitions));
    if (!(std::isfinite(plan.precisionPercent) && plan.precisionPercent >= 0 &&
          plan.precisionPercent <= kMaxPrecisionPercent))
        return invalidInput(
            QStringLiteral("precision must be 0 % (off) to %1 %").arg(kMaxPrecisionPercent));
    if (plan.precisionPercent > 0) {
        // An interval needs two repetitions, and rounds pair only when interleaved.
        if (plan.repetitions < 2)
            return invalidInput(
                QStringLiteral("with a precision, repetitions (the least) must be at least 2"));
        if (plan.maxRepetitions < plan.repetitions || plan.maxRepetitions > kMaxRepetitions)
            return invalidInput(QStringLiteral("maximum repetitions must be %1 (the least) to %2")
                                    .arg(plan.repetitions)
                                    .arg(kMaxRepetitions));
        if (plan.order != SweepOrder::Interleaved)
            return invalidInput(
                QStringLiteral("a precision needs the interleaved order: rounds are interleaved"));
        if (plan.levelKind != SweepLevelKind::Concurrency)
            return invalidInput(QStringLiteral(
                "a precision works over concurrency levels only: a rate sweep or a capacity "
                "search runs its repetitions as set"));
    }
    if (plan.threads < 0 || plan.threads > kMaxThreads)
        return invalidInput(
            QStringLiteral("threads must be 0 (one per core) to %1").arg(kMaxThreads));
    for (int cpu : plan.cpus) {
        if (cpu < 0)
            return invalidInput(QStringLiteral("CPU %1 does not exist").arg(cpu));
    }
    if (!(std::isfinite(plan.requestsTimeLimitSeconds) && plan.requestsTimeLimitSeconds >= 0))
        return invalidInput(QStringLiteral("time limit per point must be 0 s (none) or more"));
    if (!(std::isfinite(plan.warmupSeconds) && plan.warmupSeconds >= 0))
        return invalidInput(QStringLiteral("warm-up must be 0 s or more"));
    if (!(std::isfinite(plan.pauseSeconds) && plan.pauseSeconds >= 0))
        return invalidInput(QStringLiteral("pause between points must be 0 s or more"));
    for (const auto& [what, seconds] :
         {std::pair{QStringLiteral("time limit per point"), plan.requestsTimeLimitSeconds},
          std::pair{QStringLiteral("warm-up"), plan.warmupSeconds},
          std::pair{QStringLiteral("pause between points"), plan.pauseSeconds}})
        if (auto checked = checkSeconds(what, seconds, 0); !checked)
            return checked;
    return {};
}

std::vector<SweepPoint> sweepPoints(const SweepPlan& plan, const std::vector<Target>& targets) {
    // A level is (connections, rate): rate 0 for a closed-loop plan.
    std::vector<std::pair<int, double>> levels;
    if (plan.levelKind == SweepLevelKind::Capacity) {
        // One search per target and repetition: the rates are its own.
        levels.emplace_back(plan.rateConnections, 0.0);
    } else if (plan.levelKind == SweepLevelKind::Rate) {
        for (double rate : plan.rateLevels)
            levels.emplace_back(plan.rateConnections, rate);
    } else {
        for (int concurrency : plan.concurrencyLevels)
            levels.emplace_back(concurrency, 0.0);
    }
    std::vector<SweepPoint> points;
    const int repetitions = std::max(plan.repetitions, 0);
    points.reserve(levels.size() * targets.size() * static_cast<size_t>(repetitions));
    auto add = [&points](const Target& target, const std::pair<int, double>& level,
                         int repetition) {
        points.push_back(SweepPoint{static_cast<int>(points.size()), target.id, level.first,
                                    level.second, repetition});
    };
    if (plan.order == SweepOrder::Interleaved) {
        for (const auto& level : levels) {
            for (int repetition = 0; repetition < repetitions; ++repetition) {
                for (const Target& target : targets)
                    add(target, level, repetition);
            }
        }
    } else {
        for (const Target& target : targets) {
            for (const auto& level : levels) {
                for (int repetition = 0; repetition < repetitions; ++repetition)
                    add(target, level, repetition);
            }
        }
    }
    return points;
}

} // namespace loadscope::app
