#include "app/remote/agent_merge.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loadscope::app {

engine::RunResult mergeAgentRuns(const std::vector<AgentRunPart>& parts,
                                 std::vector<PartSpan>* spans) {
    engine::RunResult merged;
    uint32_t concurrency = 0;
    for (const AgentRunPart& part : parts) {
        engine::accumulate(merged, part.run);
        concurrency += part.run.concurrency;
    }
    merged.concurrency = concurrency;
    merged.cpu = {};
    merged.measureStartNs = 0;
    // Each part's start on this machine's clock, in ms since the epoch.
    double earliest = std::numeric_limits<double>::infinity();
    for (const AgentRunPart& part : parts) {
        if (part.measuredFromUs > 0)
            earliest =
                std::min(earliest, double(part.measuredFromUs) / 1000.0 - part.clockOffsetMs);
    }
    if (!std::isfinite(earliest))
        earliest = 0;
    double latestEnd = 0;
    if (spans)
        spans->clear();
    for (const AgentRunPart& part : parts) {
        const double startMs = part.measuredFromUs > 0 ? double(part.measuredFromUs) / 1000.0 -
                                                             part.clockOffsetMs - earliest
                                                       : 0.0;
        const double endMs = startMs + part.run.durationSeconds * 1000.0;
        latestEnd = std::max(latestEnd, endMs);
        if (spans)
            spans->push_back({startMs, endMs});
    }
    merged.durationSeconds = latestEnd / 1000.0;
    return merged;
}

} // namespace loadscope::app
