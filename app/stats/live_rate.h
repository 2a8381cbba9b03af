#pragma once

#include "engine/progress.h"

#include <cstdint>
#include <optional>

namespace loadscope::app {

// The rate of a point in progress over the interval between two snapshots, as
// the Run page plots it and `loadscope-cli sweep` prints it: requests (ops,
// transactions) per second, or for a stream, the bytes moved in both
// directions in 10^6 bit/s (engine::rates::throughputMbitps). One per point.
class LiveRate {
public:
    explicit LiveRate(bool fromBytes)
        : m_fromBytes(fromBytes) {}

    // The rate over the interval `progress` ends; nothing for a stream's
    // first snapshot, which has no interval of bytes before it.
    std::optional<double> next(const engine::Progress& progress);

private:
    bool m_fromBytes;
    bool m_haveLast = false;
    double m_lastSeconds = 0;
    uint64_t m_lastBytes = 0;
};

} // namespace loadscope::app
