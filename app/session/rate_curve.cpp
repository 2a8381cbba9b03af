#include "app/session/rate_curve.h"

#include <tuple>

namespace loadscope::app {

namespace {

std::optional<double> lookup(const std::map<double, double>& values, double percentile) {
    const auto found = values.find(percentile);
    if (found == values.end())
        return std::nullopt;
    return found->second;
}

// Means of the percentiles that repetitions carry, each over the ones that do.
std::map<double, double> meanPercentiles(const std::vector<const PointResult*>& results,
                                         const LatencySummary PointResult::*summary) {
    std::map<double, double> means;
    for (double p : kRateCurvePercentiles) {
        double sum = 0;
        int n = 0;
        for (const PointResult* result : results) {
            if (const auto value = (result->*summary).percentile(p)) {
                sum += *value;
                ++n;
            }
        }
        if (n > 0)
            means[p] = sum / n;
    }
    return means;
}

} // namespace

std::optional<double> RateLevel::corrected(double percentile) const {
    return lookup(correctedMs, percentile);
}

std::optional<double> RateLevel::uncorrected(double percentile) const {
    return lookup(uncorrectedMs, percentile);
}

std::vector<RateCurve> rateCurves(const Session& session) {
    // (own tool first, tool) -> offered rate -> results
    using CurveKey = std::tuple<int, QString>;
    std::map<QUuid, std::map<CurveKey, std::map<double, std::vector<const PointResult*>>>> grouped;
    for (const PointResult& result : session.results) {
        // A capacity search's steps are its own chart (capacity_comparison.h).
        if (result.cancelled || result.levelRate() <= 0 || result.capacityStep > 0 ||
            !session.findTarget(result.targetId))
            continue;
        const QString& tool = result.source.tool;
        const CurveKey key{tool == u"loadscope" ? 0 : 1, tool};
        grouped[result.targetId][key][result.levelRate()].push_back(&result);
    }

    std::vector<RateCurve> curves;
    for (const Target& target : session.targets) {
        const auto found = grouped.find(target.id);
        if (found == grouped.end())
            continue;
        for (const auto& [key, byRate] : found->second) {
            RateCurve curve;
            curve.targetId = target.id;
            curve.tool = std::get<1>(key);
            curve.label = curve.tool == u"loadscope"
                              ? target.displayName()
                              : QStringLiteral("%1 (%2)").arg(target.displayName(), curve.tool);
            for (const auto& [rate, results] : byRate) {
                RateLevel level;
                level.offeredRate = rate;
                level.repetitions = int(results.size());
                double achieved = 0;
                for (const PointResult* result : results) {
                    achieved += result->requestsPerSecond();
                    level.clientSaturated = level.clientSaturated || result->clientSaturated;
                }
                level.achievedRate = achieved / double(results.size());
                level.correctedMs = meanPercentiles(results, &PointResult::total);
                level.uncorrectedMs = meanPercentiles(results, &PointResult::uncorrected);
                curve.levels.push_back(std::move(level));
            }
            curves.push_back(std::move(curve));
        }
    }
    return curves;
}

std::optional<size_t> kneeIndex(const RateCurve& curve, double objectiveP99Ms) {
    std::optional<size_t> knee;
    for (size_t i = 0; i < curve.levels.size(); ++i) {
        const std::optional<double> p99 = curve.levels[i].corrected(99);
        if (!p99 || !(*p99 < objectiveP99Ms))
            break;
        knee = i;
    }
    return knee;
}

std::optional<double> kneeRate(const RateCurve& curve, double objectiveP99Ms) {
    if (const auto index = kneeIndex(curve, objectiveP99Ms))
        return curve.levels[*index].offeredRate;
    return std::nullopt;
}

} // namespace loadscope::app
