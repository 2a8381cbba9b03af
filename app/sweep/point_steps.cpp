#include "app/sweep/point_steps.h"

#include "app/report/error_reply_counting_protocol.h"
#include "app/session/capacity_search.h"
#include "app/session/cpu_usage.h"

namespace loadscope::app {

Result<PointSpecs> pointSpecs(const Target& target, const SweepPoint& point,
                              const SweepPlan& sweepPlan, const engine::SocketAddress* address) {
    const SweepPlan plan = pointPlan(sweepPlan, point);
    auto draft = draftLoadSpec(target, point.concurrency, plan, point.rate);
    if (!draft)
        return draft.error();
    PointSpecs specs{std::move(*draft), std::nullopt};
    if (!address)
        return specs;
    specs.draft.spec.target = *address;
    auto preload = memcachePreloadSpec(target, specs.draft.spec);
    if (!preload)
        return preload.error().prefixed(QStringLiteral("preload"));
    specs.preload = std::move(*preload);
    return specs;
}

PointResult measuredPointResult(const engine::RunResult& run, const SweepPoint& point,
                                const SweepPlan& plan, const RunEnvironment& environment) {
    PointResult result = pointResultFromRun(withErrorRepliesFolded(run), point.targetId,
                                            point.concurrency, point.repetition, environment);
    if (point.rate > 0) {
        // The plan's level, not the engine's figure: it is the key the point
        // is found by again (resume, the Compare page's levels).
        result.loadModel = LoadModel::FixedRate;
        result.offeredRate = point.rate;
    }
    result.capacityStep = point.capacityStep;
    judgeNoise(result, plan.noiseThresholdPercent);
    return result;
}

} // namespace loadscope::app
