#pragma once

#include "app/session/json_reader.h"
#include "engine/progress.h"
#include "engine/run_result.h"

#include <QJsonObject>

// The engine's Progress and RunResult as JSON, whole: every counter under its
// RunResult name and every histogram as base64 of the engine's own bytes
// (Histogram::serialize()), so that a result carried over the agent protocol
// is the result the engine merged, to the last bucket. Not the session file's
// shape (that is PointResult's, session_json.h): this is what an executor
// hands the SweepRunner.
namespace loadscope::app {

QJsonObject progressToJson(const engine::Progress& progress);
// Problems are recorded in `json` (JsonReader::ok()), naming the field.
engine::Progress progressFromJson(const JsonReader& json);

QJsonObject runResultToJson(const engine::RunResult& result);
// The machine's and the server's CPU over a window, as a result carries it
// and as an agent watching a server host reports it.
QJsonObject cpuWindowToJson(const engine::CpuWindow& window);
engine::CpuWindow cpuWindowFromJson(const JsonReader& json);
engine::RunResult runResultFromJson(const JsonReader& json);

} // namespace loadscope::app
