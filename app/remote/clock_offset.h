#pragma once

#include "app/sweep/agent_client.h"

#include <optional>
#include <vector>

namespace loadscope::app {

// How far another host's clock is from this machine's, measured over the
// agent protocol as NTP measures it: each ping notes this clock when sent
// (t0) and when its pong came (t1), the pong the agent's clock (T); the
// agent read T somewhere in [t0, t1], so its offset is T - (t0 + t1) / 2
// within +/- (t1 - t0) / 2. Of several pings the one with the shortest round
// trip is kept: the others' extra delay is queueing, and it is the bound's.
struct ClockOffset {
    double offsetMs = 0;      // the host's clock minus this one's
    double uncertaintyMs = 0; // half the kept round trip
    double roundTripMs = 0;
    int readings = 0;
};

std::optional<ClockOffset> clockOffsetOf(const std::vector<ClockReading>& readings);

} // namespace loadscope::app
