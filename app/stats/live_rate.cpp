#include "app/stats/live_rate.h"

#include "engine/run_rates.h"

#include <algorithm>

namespace loadscope::app {

std::optional<double> LiveRate::next(const engine::Progress& progress) {
    if (!m_fromBytes)
        return progress.intervalRequestsPerSecond();
    const uint64_t bytes = progress.bytesSent + progress.bytesReceived;
    const bool first = !m_haveLast;
    const double seconds = progress.elapsedSeconds - m_lastSeconds;
    // A warm-up ending resets the engine's counters: never a negative amount.
    const uint64_t moved = bytes - std::min(bytes, m_lastBytes);
    m_haveLast = true;
    m_lastSeconds = progress.elapsedSeconds;
    m_lastBytes = bytes;
    if (first || seconds <= 0)
        return std::nullopt;
    return engine::rates::throughputMbitps(moved, 0, seconds);
}

} // namespace loadscope::app
