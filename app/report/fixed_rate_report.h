#pragma once

#include "app/session/point_result.h"
#include "engine/run_result.h"

#include <QJsonObject>
#include <QString>

// What a fixed-rate run adds to every command's report and JSON: the
// offered and achieved rate, the largest backlog, and both latency
// distributions, the one from each request's intended start (corrected for
// coordinated omission, the run's `latency_ms` and its ab/memtier/netperf
// tables) and the one from its actual send (uncorrected).
namespace loadscope::app {

// The section printed after the command's own report: rates, backlog, then
// each distribution as ab's percentage table and in wrk2's --latency layout
// (its percentile lines and HdrHistogram's detailed percentile spectrum).
// Empty for a closed-loop run.
QString formatFixedRateReport(const engine::RunResult& result);

// offered_rate and achieved_rate (requests/s, over all connections; achieved
// counts successful responses, as requests/s does), max_backlog,
// client_saturated, and latency_uncorrected_ms with the keys of latency_ms.
// Nothing for a closed-loop result.
void addFixedRateJson(QJsonObject& json, const PointResult& result);

// The one-line warning for a client that could not keep the schedule, else empty.
QString scheduleWarning(const engine::RunResult& result);

} // namespace loadscope::app
