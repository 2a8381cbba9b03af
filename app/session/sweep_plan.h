#pragma once

#include "app/common/result.h"
#include "app/session/capacity_objective.h"
#include "app/session/cpu_usage.h"
#include "app/session/target.h"
#include "engine/load_limits.h"
#include "engine/load_spec.h"

#include <QString>
#include <QUuid>
#include <cstdint>
#include <optional>
#include <vector>

namespace loadscope::app {

enum class SweepOrder {
    // At each level, repetition by repetition, every target once: drift of the
    // machine over the sweep falls on all modes alike.
    Interleaved,
    // Target by target, each through all levels and repetitions: what running
    // the tool by hand once per mode amounts to.
    Sequential,
};

QString sweepOrderId(SweepOrder order); // "interleaved", "sequential"
std::optional<SweepOrder> sweepOrderFromId(QStringView id);

// How each point of a sweep ends.
enum class PointLimit { Requests, Duration };

QString pointLimitId(PointLimit limit); // "requests", "duration"
std::optional<PointLimit> pointLimitFromId(QStringView id);

// What a sweep steps through. Concurrency: closed loop, one level per
// connection count. Rate: fixed-rate load at one connection count, one level
// per offered rate, to find where each mode's latency gives way. Capacity:
// per target and repetition, a search for the highest fixed rate that meets
// a latency objective (capacity_search.h); its steps are rates it chooses.
enum class SweepLevelKind { Concurrency, Rate, Capacity };

QString sweepLevelKindId(SweepLevelKind kind); // "concurrency", "rate", "capacity"
std::optional<SweepLevelKind> sweepLevelKindFromId(QStringView id);

QString arrivalId(engine::Arrival arrival); // "constant", "poisson"
std::optional<engine::Arrival> arrivalFromId(QStringView id);

// How a capacity plan searches (capacity_search.h has the method). Its load
// is the plan's fixed-rate settings: rateConnections, arrival, timerSlackUs,
// and each step's warm-up is the plan's.
struct CapacityPlan {
    CapacityObjective objective;
    // The search stops once the lowest rate that missed the objective is
    // within this many percent above the highest that met it.
    double precisionPercent = 5;
    int maxSteps = 12; // fixed-rate steps per search, the probe not counted
    // Each step runs long enough for the objective's percentile to rest on
    // kCapacityTailSamples requests beyond it, and at least and at most these
    // (the probe runs the least).
    double minStepSeconds = 1;
    double maxStepSeconds = 30;

    friend bool operator==(const CapacityPlan&, const CapacityPlan&) = default;
};

// What to run against every target of a session. Plain value.
struct SweepPlan {
    SweepLevelKind levelKind = SweepLevelKind::Concurrency;
    std::vector<int> concurrencyLevels{1, 10, 100}; // in the order they run
    // levelKind == Rate: requests/s over all connections, in the order they
    // run, each at `rateConnections` connections spaced by `arrival`.
    std::vector<double> rateLevels{1000, 2000, 5000};
    int rateConnections = 10;
    engine::Arrival arrival = engine::Arrival::Constant;
    // At a fixed rate: how early a request may go out to share a wake-up
    // with the one due before it (engine::LoadSpec::timerSlack), in µs,
    // 0 to kMaxTimerSlackUs; 0: each request at its own time.
    int timerSlackUs = 0;
    // In a closed loop, a worker pauses before it waits while a busy
    // server's responses come often (engine::LoadSpec::wakeCoalescing).
    bool wakeCoalescing = true;
    // Take a CPU profile of every point (engine::LoadSpec::profile): where the
    // CPU went, by process role and kernel path. Lab targets get it by default.
    bool profile = false;
    PointLimit limit = PointLimit::Duration;
    uint64_t requestsPerPoint = 10'000; // when limit == Requests
    double durationSeconds = 10;        // when limit == Duration
    // When limit == Requests: a point also ends after this long, whichever
    // comes first (ab -n with -t); 0: no time limit.
    double requestsTimeLimitSeconds = 0;
    int threads = 0;          // worker threads; 0: one per core
    std::vector<int> cpus;    // pin worker threads to these CPUs; empty: no pinning
    double warmupSeconds = 0; // run before each point, not measured
    int repetitions = 3;      // with a precision: the repetitions every point gets at least
    // Repeat until tight: after a level's repetitions, add rounds (every
    // target once more, interleaved) until each target's ratio to the
    // baseline at that level is known within +/- this many percent (95%
    // interval of its primary metric), at most maxRepetitions in all.
    // 0: exactly `repetitions`.
    double precisionPercent = 0;
    int maxRepetitions = 10;
    double pauseSeconds = 0; // idle time between two points, to let the server settle
    SweepOrder order = SweepOrder::Interleaved;
    // A point during which CPU used by neither client nor server exceeded this
    // share of the machine is marked noisy (cpu_usage.h).
    double noiseThresholdPercent = kDefaultNoiseThresholdPercent;
    // levelKind == Capacity: the objective and how to search for it.
    CapacityPlan capacity;

    friend bool operator==(const SweepPlan&, const SweepPlan&) = default;
};

// Limits a plan must respect; the session file refuses values outside them.
// Those the engine takes are its own (engine/load_limits.h): one range per
// quantity, for the command line, the window, session files and the agent.
inline constexpr int kMaxConcurrency = int(engine::kMaxConcurrency);
inline constexpr int kMaxRepetitions = 1000;
inline constexpr int kMaxThreads = int(engine::kMaxThreads);
inline constexpr double kMinRate = engine::kMinRate; // requests/s
inline constexpr double kMaxRate = engine::kMaxRate; // requests/s
inline constexpr int kMaxTimerSlackUs = int(engine::kMaxTimerSlackUs);
// Seconds: a duration or timeout above 0 is at least kMinSeconds; every time
// of a plan or target is at most kMaxSeconds.
inline constexpr double kMinSeconds = engine::kMinSeconds;
inline constexpr double kMaxSeconds = engine::kMaxSeconds;

// "0.001 to 100000000": a rate's range as every message states it.
QString rateRangeText();
// A fixed rate, kMinRate to kMaxRate requests/s (the closed loop's 0 is no
// rate): "rate 1e-10 req/s is out of range (0.001 to 100000000)".
Result<void> checkRate(double rate);
// A time in seconds, `minimum` (0 or kMinSeconds) to kMaxSeconds, named
// `what` in the message: "duration per point is 1e+300 s, expected 0.001 to
// 10000000 s".
Result<void> checkSeconds(const QString& what, double seconds, double minimum);

inline constexpr double kMaxPrecisionPercent = 100;

// A capacity search's limits.
inline constexpr double kMinCapacityPrecisionPercent = 0.1;
inline constexpr double kMaxCapacityPrecisionPercent = 50;
inline constexpr int kMinCapacitySteps = 2;
inline constexpr int kMaxCapacitySteps = 100;
inline constexpr double kMinCapacityStepSeconds = 0.05;
inline constexpr double kMaxCapacityStepSeconds = 3600;

// What is wrong with `plan` in one line (no levels, a level twice, a level
// out of range, a zero limit ...), or nothing when it can run.
Result<void> validateSweepPlan(const SweepPlan& plan);

// One measurement of a sweep: one target at one level, one repetition. In a
// capacity plan, one search (rate 0 and step 0: the plan names no rate), or
// one of its steps (the rate the search chose and the step's number, from 1).
struct SweepPoint {
    int index = 0; // position in execution order, 0-based
    QUuid targetId;
    int concurrency = 0; // rate and capacity plans: the plan's connection count
    double rate = 0;     // requests/s offered; 0: closed loop
    int repetition = 0;  // 0-based
    int capacityStep = 0;

    friend bool operator==(const SweepPoint&, const SweepPoint&) = default;
};

// Every point of the plan in execution order (see SweepOrder); targets in the
// order given, levels (of the plan's kind) in the plan's order. With a
// precision, the least repetitions (plan.repetitions); the runner adds rounds
// beyond them. A capacity plan's points are its searches: one per target and
// repetition.
std::vector<SweepPoint> sweepPoints(const SweepPlan& plan, const std::vector<Target>& targets);

} // namespace loadscope::app
