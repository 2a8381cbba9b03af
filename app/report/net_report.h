#pragma once

#include "app/session/point_result.h"

#include <QString>

namespace loadscope::app {

// The "Network stack" block of a one-shot's report, after the CPU block: per namespace the point
// used, its counters that were not 0 over the measured window, then a line for each that
// matters (net_counters.h: lost and refused packets). Empty when the run read no counters.
QString formatNetBlock(const PointResult& result);

} // namespace loadscope::app
