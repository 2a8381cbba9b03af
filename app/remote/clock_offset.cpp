#include "app/remote/clock_offset.h"

namespace loadscope::app {

std::optional<ClockOffset> clockOffsetOf(const std::vector<ClockReading>& readings) {
    const ClockReading* best = nullptr;
    for (const ClockReading& reading : readings) {
        if (reading.receivedUs < reading.sentUs)
            continue; // this clock was stepped back in between: no bound holds
        if (!best || reading.receivedUs - reading.sentUs < best->receivedUs - best->sentUs)
            best = &reading;
    }
    if (!best)
        return std::nullopt;
    ClockOffset offset;
    const double roundTripUs = double(best->receivedUs - best->sentUs);
    offset.offsetMs = (double(best->agentUs) - (double(best->sentUs) + roundTripUs / 2)) / 1000.0;
    offset.uncertaintyMs = roundTripUs / 2 / 1000.0;
    offset.roundTripMs = roundTripUs / 1000.0;
    offset.readings = int(readings.size());
    return offset;
}

} // namespace loadscope::app
