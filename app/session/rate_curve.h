#pragma once

#include "app/session/session.h"

#include <QString>
#include <QUuid>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

// What a rate sweep answers: for each mode, latency against the throughput it
// achieved as the offered rate steps up, and the knee, the highest offered
// rate at which the mode still meets a latency objective. Derived from a
// session's fixed-rate results, never stored; built off the GUI thread with
// the rest of the Compare page.
namespace loadscope::app {

// The percentiles a rate curve keeps (DESIGN.md "Metrics" has them all).
inline constexpr double kRateCurvePercentiles[] = {50, 99, 99.9};

// One offered rate of one curve: the means over its repetitions.
struct RateLevel {
    double offeredRate = 0;  // requests/s, the plan's level
    int repetitions = 0;     // results pooled into the means
    double achievedRate = 0; // mean requests/s over successful responses
    // percentile -> mean ms over the repetitions that carry it. Corrected:
    // from each request's intended start; uncorrected: from its actual send.
    std::map<double, double> correctedMs;
    std::map<double, double> uncorrectedMs;
    bool clientSaturated = false; // in any repetition

    std::optional<double> corrected(double percentile) const;
    std::optional<double> uncorrected(double percentile) const;
};

// One mode's fixed-rate results of one tool, its levels by offered rate
// ascending.
struct RateCurve {
    QUuid targetId;
    QString tool;  // "loadscope", "wrk2"
    QString label; // the target's name, with the tool when it is not Loadscope
    std::vector<RateLevel> levels;
};

// Every target's curves, targets in session order, a target's Loadscope
// curve first. Cancelled results, closed-loop ones and fixed-rate ones of
// unknown rate are left out.
std::vector<RateCurve> rateCurves(const Session& session);

// The knee of a curve for an objective on p99 (ms): the highest offered
// rate, walking up from the lowest, before the first level whose p99 reaches
// the objective or has none. An index into curve.levels; nullopt when even
// the lowest level misses the objective (or the curve is empty). A level
// above a miss that happens to meet it again does not count: the mode has
// already given way.
std::optional<size_t> kneeIndex(const RateCurve& curve, double objectiveP99Ms);
std::optional<double> kneeRate(const RateCurve& curve, double objectiveP99Ms);

} // namespace loadscope::app
