#pragma once

#include "app/session/json_reader.h"
#include "engine/cpu_profile.h"

#include <QJsonObject>

// The engine's CpuProfile as the agent protocol carries it inside a result
// (run_result_json.h): every count by role and path id, every kept call chain.
namespace loadscope::app {

QJsonObject cpuProfileToJson(const engine::CpuProfile& profile);
// Problems are recorded in `json` (JsonReader::ok()), naming the field.
engine::CpuProfile cpuProfileFromJson(const JsonReader& json);

} // namespace loadscope::app
