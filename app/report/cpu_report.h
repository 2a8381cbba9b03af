#pragma once

#include "app/session/point_result.h"

#include <QString>

namespace loadscope::app {

// The closing "CPU" block of a one-shot's report: the machine's time by kind
// as % of all its CPUs over the measured window, the client's and the
// server's CPU, the per-request figures and whether the run was noisy.
// Empty when the run has no CPU window.
QString formatCpuBlock(const PointResult& result);

// What would make a comparison of this run tighter, from its CPU window and
// placement: one run has no spread, so repetitions come first.
QString oneShotAdvice(const PointResult& result);

} // namespace loadscope::app
