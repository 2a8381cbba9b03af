#include "app/stats/latency_distribution.h"

#include <string_view>

namespace loadscope::app {

namespace {

// Merged straight from the stored bytes: decoding each into a bucket array of
// its own first made charting a level of a large session page-fault its way
// through a fresh array per result.
void mergeInto(std::map<TargetLevel, MergedHistogram>& merged, const PointResult& result) {
    if (result.cancelled || result.totalHistogram.isEmpty())
        return;
    const auto [entry, added] = merged.try_emplace({result.targetId, result.concurrency});
    if (!entry->second.histogram.mergeSerialized(
            std::string_view(result.totalHistogram.constData(),
                             static_cast<size_t>(result.totalHistogram.size())))) {
        if (added)
            merged.erase(entry);
        return;
    }
    ++entry->second.results;
}

// The result whose printed percentiles stand for a target and level: the
// lowest repetition that has any.
bool printsBetter(const PointResult& candidate, const PointResult* current) {
    return !candidate.cancelled && candidate.totalHistogram.isEmpty() &&
           !candidate.total.percentilesMs.empty() &&
           (!current || candidate.repetition < current->repetition);
}

LatencyDistribution fromHistogram(const TargetLevel& key, const MergedHistogram& merged) {
    LatencyDistribution distribution;
    distribution.targetId = key.first;
    distribution.concurrency = key.second;
    distribution.source = LatencyDistribution::Source::Histograms;
    distribution.results = merged.results;
    for (const auto& point : merged.histogram.percentileDistribution(5))
        distribution.percentiles.push_back({point.percentile, double(point.valueNs) / 1e6});
    return distribution;
}

LatencyDistribution fromPrinted(const PointResult& result) {
    LatencyDistribution distribution;
    distribution.targetId = result.targetId;
    distribution.concurrency = result.concurrency;
    distribution.source = LatencyDistribution::Source::PrintedPercentiles;
    distribution.results = 1;
    for (const auto& [percentile, ms] : result.total.percentilesMs)
        distribution.percentiles.push_back({percentile, ms});
    return distribution;
}

} // namespace

std::map<TargetLevel, MergedHistogram> mergedTotalHistograms(const Session& session) {
    std::map<TargetLevel, MergedHistogram> merged;
    for (const PointResult& result : session.results)
        mergeInto(merged, result);
    return merged;
}

std::optional<MergedHistogram> mergedTotalHistogram(const Session& session, const QUuid& targetId,
                                                    int concurrency) {
    std::map<TargetLevel, MergedHistogram> merged;
    for (const PointResult& result : session.results) {
        if (result.targetId == targetId && result.concurrency == concurrency)
            mergeInto(merged, result);
    }
    if (merged.empty())
        return std::nullopt;
    return std::move(merged.begin()->second);
}

std::optional<LatencyDistribution> latencyDistribution(const Session& session,
                                                       const QUuid& targetId, int concurrency) {
    if (auto merged = mergedTotalHistogram(session, targetId, concurrency))
        return fromHistogram({targetId, concurrency}, *merged);
    const PointResult* printed = nullptr;
    for (const PointResult& result : session.results) {
        if (result.targetId == targetId && result.concurrency == concurrency &&
            printsBetter(result, printed))
            printed = &result;
    }
    if (!printed)
        return std::nullopt;
    return fromPrinted(*printed);
}

std::map<QUuid, LatencyDistribution> latencyDistributionsAt(const Session& session,
                                                            int concurrency) {
    std::map<TargetLevel, MergedHistogram> merged;
    std::map<QUuid, const PointResult*> printed;
    for (const PointResult& result : session.results) {
        if (result.concurrency != concurrency)
            continue;
        mergeInto(merged, result);
        const PointResult*& current = printed[result.targetId];
        if (printsBetter(result, current))
            current = &result;
    }
    std::map<QUuid, LatencyDistribution> distributions;
    for (const auto& [key, histogram] : merged)
        distributions.emplace(key.first, fromHistogram(key, histogram));
    // Histograms win: a level with both measured and imported repetitions is
    // drawn from what can be merged.
    for (const auto& [target, result] : printed) {
        if (result && !distributions.count(target))
            distributions.emplace(target, fromPrinted(*result));
    }
    return distributions;
}

} // namespace loadscope::app
