#pragma once

#include "engine/histogram.h"

#include <cstdint>

namespace loadscope::engine {

// Immutable snapshot a LoadRun publishes about ten times a second.
struct Progress {
    double elapsedSeconds = 0; // since the measured part began (negative during warm-up)
    bool warmingUp = false;
    uint64_t complete = 0; // measured requests so far
    uint64_t failed = 0;
    uint64_t bytesReceived = 0;
    uint64_t bytesSent = 0;
    uint64_t target = 0;      // requests asked for; 0 for a timed run
    double targetSeconds = 0; // duration asked for; 0 for a counted run

    double intervalSeconds = 0; // length of the interval below
    uint64_t intervalComplete = 0;
    Histogram intervalLatency; // total time of the requests that ended in the interval

    double intervalRequestsPerSecond() const {
        return intervalSeconds > 0 ? double(intervalComplete) / intervalSeconds : 0;
    }
};

} // namespace loadscope::engine
