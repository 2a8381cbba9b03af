#include "app/stats/sweep_estimate.h"

#include "app/session/capacity_search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace loadscope::app {

namespace {

// Seconds per request of a target at each level it has results for.
using PaceTable = std::map<QUuid, std::map<int, double>>;

PaceTable measuredPace(const Session& session) {
    struct Sum {
        double seconds = 0;
        double requests = 0;
    };
    std::map<QUuid, std::map<int, Sum>> sums;
    for (const PointResult& result : session.results) {
        if (result.cancelled || result.durationSeconds <= 0 || result.complete == 0)
            continue;
        Sum& sum = sums[result.targetId][result.concurrency];
        sum.seconds += result.durationSeconds;
        sum.requests += static_cast<double>(result.complete);
    }
    PaceTable pace;
    for (const auto& [target, levels] : sums) {
        for (const auto& [level, sum] : levels)
            pace[target][level] = sum.seconds / sum.requests;
    }
    return pace;
}

std::optional<double> paceFor(const PaceTable& pace, const QUuid& target, int level) {
    const auto found = pace.find(target);
    if (found == pace.end() || found->second.empty())
        return std::nullopt;
    // The nearest level measured so far: rates change with concurrency, but
    // the nearest level is a better guess than none.
    const std::map<int, double>& levels = found->second;
    auto best = levels.begin();
    for (auto it = levels.begin(); it != levels.end(); ++it) {
        if (std::abs(std::log(double(it->first)) - std::log(double(level))) <
            std::abs(std::log(double(best->first)) - std::log(double(level))))
            best = it;
    }
    return best->second;
}

} // namespace

namespace {

// A capacity plan's searches: a probe and typicalCapacitySteps() steps of the
// shortest length each, at most plan.maxSteps of the longest. A step's length
// depends on the rate the search chooses, so the two ends are all it says.
SweepEstimate estimateSearches(const Session& session) {
    SweepEstimate estimate;
    const SweepPlan& plan = session.plan;
    const CapacityPlan& capacity = plan.capacity;
    const double warmup = std::max(0.0, plan.warmupSeconds);
    const double pause = std::max(0.0, plan.pauseSeconds);
    const double probe = warmup + capacity.minStepSeconds;
    const int typical = typicalCapacitySteps(capacity);
    const double least = probe + typical * (warmup + capacity.minStepSeconds + pause);
    const double most = probe + capacity.maxSteps * (warmup + capacity.maxStepSeconds + pause);
    const std::vector<SweepPoint> points = sweepPoints(session);
    const DonePoints done(session);
    estimate.points = int(points.size());
    estimate.mostPoints = estimate.points;
    for (const SweepPoint& point : points) {
        estimate.totalSeconds += least;
        estimate.mostSeconds += most;
        if (!done.contains(point)) {
            ++estimate.missingPoints;
            estimate.remainingSeconds += least;
        }
    }
    return estimate;
}

} // namespace

SweepEstimate estimateSweep(const Session& session) {
    if (session.plan.levelKind == SweepLevelKind::Capacity)
        return estimateSearches(session);
    SweepEstimate estimate;
    const SweepPlan& plan = session.plan;
    const std::vector<SweepPoint> points = sweepPoints(session);
    const PaceTable pace = plan.limit == PointLimit::Requests ? measuredPace(session) : PaceTable{};
    const double warmup = std::max(0.0, plan.warmupSeconds);
    const double pause = std::max(0.0, plan.pauseSeconds);
    const DonePoints done(session);

    estimate.points = static_cast<int>(points.size());
    for (const SweepPoint& point : points) {
        const bool missing = !done.contains(point);
        std::optional<double> measured;
        if (plan.limit == PointLimit::Duration) {
            measured = plan.durationSeconds;
        } else if (point.rate > 0) {
            // On a schedule the requests take as long as the rate says (more
            // when the target falls behind: then the time limit, if any).
            measured = static_cast<double>(plan.requestsPerPoint) / point.rate;
            if (plan.requestsTimeLimitSeconds > 0)
                measured = std::min(*measured, plan.requestsTimeLimitSeconds);
        } else if (auto secondsPerRequest = paceFor(pace, point.targetId, point.concurrency)) {
            measured = *secondsPerRequest * static_cast<double>(plan.requestsPerPoint);
        }
        if (missing)
            ++estimate.missingPoints;
        if (!measured) {
            ++estimate.unknownPoints;
            if (missing)
                ++estimate.unknownMissingPoints;
        }
        const double length = warmup + measured.value_or(0);
        estimate.totalSeconds += length;
        if (missing)
            estimate.remainingSeconds += length;
    }
    // Every repetition of a point lasts as long as the first, so the most
    // repetitions scale the points' time; the pauses go between all of them.
    const double rounds =
        plan.precisionPercent > 0 && plan.repetitions > 0
            ? double(std::max(plan.maxRepetitions, plan.repetitions)) / double(plan.repetitions)
            : 1.0;
    estimate.mostPoints = int(std::lround(estimate.points * rounds));
    estimate.mostSeconds = estimate.totalSeconds * rounds;
    if (estimate.mostPoints > 1)
        estimate.mostSeconds += pause * (estimate.mostPoints - 1);
    if (estimate.points > 1)
        estimate.totalSeconds += pause * (estimate.points - 1);
    if (estimate.missingPoints > 1)
        estimate.remainingSeconds += pause * (estimate.missingPoints - 1);
    return estimate;
}

} // namespace loadscope::app
