#pragma once

#include "app/common/result.h"
#include "app/session/cpu_usage.h"
#include "app/session/target.h"

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

// What to run against every target of a session. Plain value.
struct SweepPlan {
    std::vector<int> concurrencyLevels{1, 10, 100}; // in the order they run
    PointLimit limit = PointLimit::Duration;
    uint64_t requestsPerPoint = 10'000; // when limit == Requests
    double durationSeconds = 10;        // when limit == Duration
    // When limit == Requests: a point also ends after this long, whichever
    // comes first (ab -n with -t); 0: no time limit.
    double requestsTimeLimitSeconds = 0;
    int threads = 0;          // worker threads; 0: one per core
    std::vector<int> cpus;    // pin worker threads to these CPUs; empty: no pinning
    double warmupSeconds = 0; // run before each point, not measured
    int repetitions = 3;
    double pauseSeconds = 0; // idle time between two points, to let the server settle
    SweepOrder order = SweepOrder::Interleaved;
    // A point during which CPU used by neither client nor server exceeded this
    // share of the machine is marked noisy (cpu_usage.h).
    double noiseThresholdPercent = kDefaultNoiseThresholdPercent;

    friend bool operator==(const SweepPlan&, const SweepPlan&) = default;
};

// Limits a plan must respect; the session file refuses values outside them.
inline constexpr int kMaxConcurrency = 1'000'000;
inline constexpr int kMaxRepetitions = 1000;
inline constexpr int kMaxThreads = 4096;

// What is wrong with `plan` in one line (no levels, a level twice, a level
// out of range, a zero limit ...), or nothing when it can run.
Result<void> validateSweepPlan(const SweepPlan& plan);

// One measurement of a sweep: one target at one concurrency, one repetition.
struct SweepPoint {
    int index = 0; // position in execution order, 0-based
    QUuid targetId;
    int concurrency = 0;
    int repetition = 0; // 0-based

    friend bool operator==(const SweepPoint&, const SweepPoint&) = default;
};

// Every point of the plan in execution order (see SweepOrder); targets in the
// order given, levels in the plan's order.
std::vector<SweepPoint> sweepPoints(const SweepPlan& plan, const std::vector<Target>& targets);

} // namespace loadscope::app
