#pragma once

#include "app/common/result.h"
#include "app/session/point_result.h"

#include <QString>
#include <cstdint>

// The range of every stored figure of a result, beside the result schema
// (result_schema.h) that names them: a result that breaks one is not a
// measurement, whatever the way it arrived. The session loader checks each
// result it reads against it (a result that fails is set aside, see
// session_json.h), the importers each report before it is saved, so that no
// imported figure can make a session refuse to open.
namespace loadscope::app {

// What a figure measures, and so the range it must lie in.
enum class FigureKind {
    DurationSeconds, // the measured time: (0, 1e7] s (0 where nothing derives a rate from it)
    CpuSeconds,      // [0, 1e11] s
    Count,           // whole, [0, 2^53]: a JSON number holds it exactly
    Rate,            // requests, KiB or Mbit per second: [0, 1e12]
    Milliseconds,    // a latency or time per request: [0, 1e9] ms
    PercentileKey,   // (0, 100]
    Concurrency,     // whole, [1, kMaxConcurrency]
    Repetition,      // whole, [0, kMaxRepetitions)
    Threads,         // whole, [0, kMaxThreads]
    DocumentLength,  // whole, [-1, 2^53]; -1: never seen
    Cores,           // whole, [0, 2^20]
    Cpu,             // whole, [0, 65535]
    StatusCode,      // whole, [0, 999]
};

struct FigureRange {
    double minimum = 0;
    bool aboveMinimum = false; // the minimum itself is out of range
    double maximum = 0;
    bool whole = false;
};

// The one table of ranges.
FigureRange figureRange(FigureKind kind);

// The first rule `result` breaks, as one Format error whose message names the
// figure as the session file does: "durationSeconds is -0.002",
// "latency.total.percentiles.99 is 1e+44, above 1000000000",
// "failed is 12, more than complete (10)",
// "latency.total.percentiles decrease: 99 is 4, below 90 at 5".
Result<void> checkResultRanges(const PointResult& result);

} // namespace loadscope::app
