#pragma once

#include "engine/run_result.h"

#include <cstdint>
#include <vector>

namespace loadscope::app {

// One agent's run of a point loaded from several hosts, placed on this
// machine's clock.
struct AgentRunPart {
    engine::RunResult run;
    // Its measured time's start on its own clock (µs since the epoch; 0: not
    // known) and its clock's offset from this machine's, in ms.
    int64_t measuredFromUs = 0;
    double clockOffsetMs = 0;
};

// Where a part's measured time lies, in ms after the common window's start,
// on this machine's clock.
struct PartSpan {
    double startMs = 0;
    double endMs = 0;
};

// The point's result: the parts' exact merge (engine::accumulate: every count
// summed, every histogram merged bucket for bucket, the connections, threads
// and offered rates added, saturated when any part was), its measured time the
// common window, from the earliest part's start to the latest part's end on
// this machine's clock (each part's own times less its offset), so that every
// rate is the hosts' requests over the time they took together. Parts without
// a start time are taken to have begun with the earliest. The CPU window is
// left out: each part's is another machine's (the point's comes from the
// server's host). `spans`, when given, gets each part's span.
engine::RunResult mergeAgentRuns(const std::vector<AgentRunPart>& parts,
                                 std::vector<PartSpan>* spans = nullptr);

} // namespace loadscope::app
