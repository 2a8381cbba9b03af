#pragma once

#include "app/common/result.h"

#include <QString>
#include <optional>

// A latency objective (an SLO) that a capacity search holds each of its
// fixed-rate steps to: a percentile of the corrected latency (from each
// request's intended start) and its bound, and optionally the share of
// requests that may fail and the share of the offered rate that must be
// achieved. Plain value.
namespace loadscope::app {

struct PointResult;

inline constexpr double kMinObjectivePercentile = 50;
inline constexpr double kMaxObjectivePercentile = 99.99;
inline constexpr double kMaxObjectiveBoundMs = 3'600'000; // an hour, the histogram's range

struct CapacityObjective {
    double percentile = 99; // kMinObjectivePercentile to kMaxObjectivePercentile
    double boundMs = 5;     // above 0
    // A step whose failed share (failed / ended requests, percent) exceeds
    // this misses the objective; absent: failures are not judged.
    std::optional<double> maxFailedPercent;
    // A step whose achieved rate fell below this percentage of the offered
    // one misses it: the server did not take the rate, whatever the latency
    // of the requests it did answer. Absent: not judged.
    std::optional<double> minAchievedPercent;

    friend bool operator==(const CapacityObjective&, const CapacityObjective&) = default;
};

// What is wrong with the objective in one line, or nothing.
Result<void> validateCapacityObjective(const CapacityObjective& objective);

// "p99=5ms" (also "p99.9=800us", "p50=0.2s", "p99<=5ms", "p99 = 5 ms"): the
// percentile and its bound; a bound without a unit is in ms. Refused in one
// line: "p101", a bound at or below 0, a unit it does not know.
Result<CapacityObjective> parseLatencyObjective(const QString& text);
// "0.1%" or "0.1": a percentage from 0 to 100, for --max-failed and
// --min-achieved (`option` names it in the refusal).
Result<double> parsePercentage(const QString& option, const QString& text);

// "p99 ≤ 5 ms", with ", failed ≤ 0.1 %" and ", achieved ≥ 95 % of offered"
// when set: what reports and charts print.
QString objectiveText(const CapacityObjective& objective);
// "p99 <= 5 ms" and the rest in ASCII: for the CSV files.
QString objectiveAsciiText(const CapacityObjective& objective);
// "p99", "p99.9": the percentile as the objective names it.
QString objectivePercentileLabel(double percentile);

// How one step stands against the objective.
enum class StepVerdict {
    Met,
    Missed,
    // The client, not the server, was the limit: it could not keep the
    // schedule (its CPU), or every connection was busy while the server
    // still answered each request as fast as when lightly loaded. The step
    // says nothing about the server.
    ClientLimited,
};
QString stepVerdictId(StepVerdict verdict); // "met", "missed", "client-limited"

struct StepJudgement {
    StepVerdict verdict = StepVerdict::Missed;
    // The objective's percentile of the corrected latency; absent when no
    // request succeeded.
    std::optional<double> latencyMs;
    // The same percentile from each request's actual send: what the
    // client's own lateness does not reach.
    std::optional<double> sentLatencyMs;
    std::optional<double> failedPercent;   // absent when no request ended
    std::optional<double> achievedPercent; // achieved / offered x 100
    // How far the step is from the objective: the largest of latency / bound,
    // failed share / its bound and the achieved share's bound / achieved share;
    // above 1 it misses. The search compares it between steps.
    double excess = 0;
    // Missed on the latency alone, in the tail: the objective's percentile
    // (p90 or above) over the bound while the median is within it, as a
    // stall of the machine leaves a step. The search asks such a step again.
    bool tailOnly = false;
    QString why; // "p99 12.4 ms > 5 ms"; "p99 3.1 ms" when met
};

// The step as the objective judges it. A step is a fixed-rate result
// (PointResult::offeredRate). ClientLimited takes its CPU verdict from the
// result (clientSaturated) and leaves the busy-connections case to the
// search (which knows the lightly loaded latency), so here it is a miss.
StepJudgement judgeCapacityStep(const PointResult& step, const CapacityObjective& objective);

// The latency at `percentile` of a result's corrected latency: the stored
// figure when it is one of the standard percentiles, else read from the
// stored histogram; absent when neither holds it.
std::optional<double> correctedLatencyAt(const PointResult& result, double percentile);
// The same of its latency from each request's actual send (uncorrected).
std::optional<double> uncorrectedLatencyAt(const PointResult& result, double percentile);

} // namespace loadscope::app
