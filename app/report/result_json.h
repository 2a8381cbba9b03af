#pragma once

#include "engine/run_result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace loadscope::app {

// The stable machine-readable form of a run, shared by every protocol's
// command. Keys are documented in the README and never renamed.
//
// latency object: min, mean, sd, p50, p66, p75, p80, p90, p95, p98, p99, p99_9,
// p99_99, max — milliseconds.
QJsonObject latencyJson(const engine::Histogram& histogram);

// Counts, error classes, rates, placement and the total/connect/waiting/
// processing latency objects of any run.
QJsonObject runResultJson(const engine::RunResult& result);

// One header row and one value row of the JSON's scalar fields (latency
// objects flattened as latency_ms_p99 etc., status codes as status_200),
// RFC 4180.
QByteArray jsonToCsv(const QJsonObject& object);

} // namespace loadscope::app
