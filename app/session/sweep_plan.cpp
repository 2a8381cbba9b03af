#include "app/session/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <set>

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

Result<void> validateSweepPlan(const SweepPlan& plan) {
    if (plan.concurrencyLevels.empty())
        return invalidInput(QStringLiteral("the sweep has no concurrency levels"));
    std::set<int> seen;
    for (int level : plan.concurrencyLevels) {
        if (level < 1 || level > kMaxConcurrency)
            return invalidInput(QStringLiteral("concurrency %1 is out of range (1 to %2)")
                                    .arg(level)
                                    .arg(kMaxConcurrency));
        if (!seen.insert(level).second)
            return invalidInput(QStringLiteral("concurrency %1 is listed twice").arg(level));
    }
    if (plan.limit == PointLimit::Requests && plan.requestsPerPoint == 0)
        return invalidInput(QStringLiteral("requests per point must be at least 1"));
    if (plan.limit == PointLimit::Duration &&
        !(std::isfinite(plan.durationSeconds) && plan.durationSeconds > 0))
        return invalidInput(QStringLiteral("duration per point must be more than 0 s"));
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
    return {};
}

std::vector<SweepPoint> sweepPoints(const SweepPlan& plan, const std::vector<Target>& targets) {
    std::vector<SweepPoint> points;
    const int repetitions = std::max(plan.repetitions, 0);
    points.reserve(plan.concurrencyLevels.size() * targets.size() *
                   static_cast<size_t>(repetitions));
    auto add = [&points](const Target& target, int level, int repetition) {
        points.push_back(SweepPoint{static_cast<int>(points.size()), target.id, level, repetition});
    };
    if (plan.order == SweepOrder::Interleaved) {
        for (int level : plan.concurrencyLevels) {
            for (int repetition = 0; repetition < repetitions; ++repetition) {
                for (const Target& target : targets)
                    add(target, level, repetition);
            }
        }
    } else {
        for (const Target& target : targets) {
            for (int level : plan.concurrencyLevels) {
                for (int repetition = 0; repetition < repetitions; ++repetition)
                    add(target, level, repetition);
            }
        }
    }
    return points;
}

} // namespace loadscope::app
