#pragma once

#include "app/session/capacity_objective.h"
#include "app/session/point_result.h"
#include "app/session/sweep_plan.h"

#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

// Capacity at a latency objective: the highest fixed rate a target sustains
// while its steps meet the objective (capacity_objective.h), found by a
// search that needs no guessed levels.
//
// The method, per target and repetition:
// 1. A probe: a closed loop at the plan's connections for the shortest step.
//    Its throughput is the order of magnitude; it is not kept.
// 2. Fixed-rate steps, the first at the probe's throughput. The second is
//    three quarters of the first when it missed, four thirds when it met: a
//    server's capacity at a latency objective is most often near what it
//    does saturated, and a bracket of 4/3 takes one bisection less than one
//    of 2. After that, while every step met the objective the next doubles
//    the highest; while every step missed, it is a quarter of the lowest.
// 3. Once one rate met and a higher one missed, bisection between the
//    highest that met and the lowest that missed, at their geometric mean
//    (rates are bracketed by ratios, and the mean halves the ratio's log).
// 4. It stops when the lowest miss is within the plan's precision above the
//    highest meet; when the step budget is spent; when the client was the
//    limit of a step, which it says rather than taking the client's limit
//    for the server's: every connection busy while the server answered as
//    fast as when lightly loaded, or a client that could not keep the
//    schedule (StepVerdict::ClientLimited) at the same step twice more
//    (other load may keep it from its CPU for a moment: such a step is asked
//    again before it counts, and counts as a miss when the server missed the
//    bound even from each request's actual send, unless the client both fell
//    short of the rate and spent its CPU, kCapacityClientCpuSpent: a server
//    that takes no more than it can falls short of the rate too, but a client
//    on CPU all the step may have taken the server's CPU with it); or when
//    no rate meets the objective (below).
//    A step that missed in the tail alone (StepJudgement::tailOnly: the
//    median within the bound, as a stall of the machine leaves a step) is
//    asked again once before it counts. No rate meets the
//    objective: two misses at rates a factor 2 or more apart as far from it
//    as each other (lower load did not help: the server's unloaded latency
//    is above the bound), or a miss at 1/64 of the first step's rate.
// The answer is the highest rate that met the objective, with the lowest
// that did not above it. A step that met above a lower miss does not count
// (the mode had already given way; as the knee of a rate sweep).
//
// A step runs long enough for the percentile to be estimable: at the
// offered rate, kCapacityTailSamples requests beyond the percentile's rank
// (1,000 requests for p99, 10,000 for p99.9), so that the figure is an order
// statistic with about ten above it, not the largest of a handful; at least
// the plan's shortest step and at most its longest. Its warm-up is the
// plan's. Everything here is derived from the stored steps (never stored):
// a search cut short continues from its last step, and a changed precision
// or budget continues finished ones.
namespace loadscope::app {

struct Session;

inline constexpr int kCapacityTailSamples = 10;
// The search gives up on a target whose lowest step missed at this fraction
// of its first step's rate.
inline constexpr double kCapacityFloorFraction = 1.0 / 64;
// The lowest miss and the lowest at twice its rate or more, whose excess
// (StepJudgement::excess) differ by less than this share, show that lower
// load did not bring the step nearer to the objective.
inline constexpr double kCapacityFlatExcess = 0.2;
// How many times a step the client could not keep on schedule is asked again
// before it counts: as a miss when it achieved kCapacityOfferedShare of the
// offered rate and missed the bound from the actual send too, else as the
// client's limit.
inline constexpr int kCapacityClientRetries = 2;
// How many times a miss in the tail alone (StepJudgement::tailOnly) is
// asked again before it counts: a stall of the machine misses that way once.
inline constexpr int kCapacityTailRetries = 1;
inline constexpr double kCapacityOfferedShare = 0.95;
// The client's threads on CPU this share of a step (PointResult::clientCpuLoad):
// its CPU was spent.
inline constexpr double kCapacityClientCpuSpent = 0.9;
// The second step's rate, as a share of the first's, when the first missed
// (its inverse when the first met).
inline constexpr double kCapacitySecondStepFraction = 0.75;

// How long a step at `rate` runs (its measured time, warm-up apart).
double capacityStepSeconds(const CapacityPlan& plan, double rate);
// The plan a step at `rate` runs with: the fixed rate at the plan's
// connections, for capacityStepSeconds(), everything else the plan's.
SweepPlan capacityStepPlan(const SweepPlan& plan, double rate);
// The plan of the probe: a closed loop at the plan's connections for the
// shortest step.
SweepPlan capacityProbePlan(const SweepPlan& plan);
// The steps a search takes when the server gives way near its saturated
// throughput: the opening two, then the bisections from a bracket of 4/3 to
// the plan's precision. Searches that must climb or descend take more, those
// asked again more still, at most plan.maxSteps.
int typicalCapacitySteps(const CapacityPlan& plan);
// The plan `point` runs with: a capacity plan's search point (step 0) its
// probe's, a step its step's; any other point the plan itself.
SweepPlan pointPlan(const SweepPlan& plan, const SweepPoint& point);
// The first step's rate after a probe that achieved `probeRate` req/s.
double firstCapacityStepRate(double probeRate);

// Why a search stopped.
enum class CapacityStop {
    Precision,     // the lowest miss is within the precision above the highest meet
    StepBudget,    // plan.maxSteps steps ran
    ClientLimited, // a step was limited by the client, not the server
    NoRateMeets,   // no rate met the objective (see above)
    RateCeiling,   // every step met, and the next would exceed kMaxRate
};
QString capacityStopId(CapacityStop stop); // "precision", "step-budget", "client-limited", ...

struct CapacityStepRecord {
    const PointResult* result = nullptr;
    int number = 0;  // from 1
    double rate = 0; // offered
    StepJudgement judgement;
    // Met above a lower miss: not counted (see above).
    bool inconsistent = false;
    // Asked again at the same rate by the next step, which counts instead.
    bool askedAgain = false;
};

// One search of one target: its steps and what they add up to.
struct CapacitySearch {
    QUuid targetId;
    int repetition = 0;
    int connections = 0;
    std::vector<CapacityStepRecord> steps; // by step number
    std::optional<size_t> highestMet;      // index into steps: the answer
    std::optional<size_t> lowestMissed;    // index into steps
    std::optional<size_t> clientLimited;   // index of the step the client limited
    std::optional<CapacityStop> stop;      // nullopt: not finished
    // Not finished and at least one step: the rate of the next step.
    std::optional<double> nextRate;

    bool finished() const { return stop.has_value(); }
    // The highest rate that met the objective (offered req/s), when any did.
    std::optional<double> capacity() const;
    // The lowest rate above it that missed, when any did.
    std::optional<double> lowestMissedRate() const;
    // (lowest miss - highest meet) / lowest miss in percent: how well the
    // search pinned the capacity down; absent without both.
    std::optional<double> bracketPercent() const;
    // Finished with an answer a capacity can be stated from: a rate met, and
    // the search did not stop with the client as the limit below a miss.
    // A client-limited search's answer is a lower bound (see clientLimited).
    bool hasAnswer() const { return finished() && capacity().has_value(); }
    // One line: "9170 req/s (missed at 9580 req/s: p99 7.1 ms > 5 ms; within 4.3 %)",
    // "no rate meets it: at 120 req/s (the lowest step) p99 8.2 ms > 5 ms",
    // "at least 41000 req/s: the client was the limit at 80000 req/s (...)".
    QString summary() const;
};

// The search that `steps` (the stored steps of one target and repetition,
// any order) add up to under `plan`.
CapacitySearch capacitySearch(const SweepPlan& plan, const QUuid& targetId, int repetition,
                              std::vector<const PointResult*> steps);

// Every search of the session's capacity plan, finished or not: targets in
// session order, repetitions ascending; those of the plan's repetitions
// that have no step yet included (with no steps). Empty for other plans.
std::vector<CapacitySearch> capacitySearches(const Session& session);

} // namespace loadscope::app
