#pragma once

#include "app/session/point_result.h"

#include <QString>

namespace loadscope::app {

// The "CPU profile" block of a one-shot's report, after the CPU block: µs of
// CPU per request by process role (user and kernel apart) and by kernel path,
// the samples it rests on, lost samples and the profile's own cost. Empty
// without a profile; one line saying why when one was asked for and refused.
QString formatProfileBlock(const PointResult& result);

} // namespace loadscope::app
