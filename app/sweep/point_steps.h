#pragma once

#include "app/common/result.h"
#include "app/session/point_result.h"
#include "app/session/sweep_plan.h"
#include "app/session/target.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/load_spec.h"
#include "engine/run_result.h"

#include <optional>

// The steps of one point that do not depend on who drives it: the specs from
// the one builder before the run and the result as it is kept after it. A
// sweep (SweepRunner) and a CLI one-shot (one target, a one-point plan) take
// the same steps, and both run the spec through a PointRun in between.
namespace loadscope::app {

// The measured spec of a point (without its address) and, when the target
// asks for one, its preload.
struct PointSpecs {
    LoadSpecDraft draft;
    std::optional<engine::LoadSpec> preload;
};

// The specs of `point` under `plan` (a capacity plan's search or step under
// the plan it runs with: pointPlan()). With an address, the measured spec goes
// to it and the preload is built; without one, only the spec is checked.
// The error names what is wrong; the caller names the target.
Result<PointSpecs> pointSpecs(const Target& target, const SweepPoint& point, const SweepPlan& plan,
                              const engine::SocketAddress* address);

// A finished run of `point` as it is kept: memcached error replies folded
// back into their classes (withErrorRepliesFolded), the fixed-rate level of
// the plan as the offered rate, judged for noise by the plan's threshold.
PointResult measuredPointResult(const engine::RunResult& run, const SweepPoint& point,
                                const SweepPlan& plan, const RunEnvironment& environment);

} // namespace loadscope::app
