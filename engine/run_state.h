#pragma once

#include "engine/histogram.h"
#include "engine/load_spec.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>

namespace loadscope::engine::detail {

int64_t monotonicNs() noexcept;

// State every worker of one run reads; written rarely (stop, first document length).
struct SharedRunState {
    explicit SharedRunState(const LoadSpec& s)
        : spec(s) {}

    const LoadSpec& spec;
    // Set once, by the last worker to be ready (workerReady()), before any
    // worker or the monitor reads them: a worker's set-up (histograms, its TLS
    // context, its sockets) is neither measured time nor late schedule.
    int64_t measureStartNs = 0; // end of warm-up
    int64_t deadlineNs = std::numeric_limits<int64_t>::max();

    // Workers still setting up; the one that brings it to 0 runs
    // `beforeClock` (the CPU sample that opens a window without warm-up),
    // reads the clock and opens the run.
    std::atomic<uint32_t> unready{0};
    std::atomic<bool> clockStarted{false};
    std::function<void()> beforeClock;
    // Called exactly once by every worker when it is ready (or gave up);
    // returns when the run's clock has started.
    void workerReady();
    // Returns when the clock has started (the monitor's first step).
    void awaitClock() const { clockStarted.wait(false, std::memory_order_acquire); }

    std::atomic<bool> stop{false};
    std::atomic<bool> everConnected{false};
    std::atomic<bool> unreachable{false};
    // Requests left to start in a counted run; claimed one at a time, so the
    // run ends after exactly spec.requests, however the threads race.
    std::atomic<int64_t> remaining{0};
    std::atomic<int64_t> documentLength{-1};
};

// What a worker hands the monitor about every 25 ms. Guarded by `mutex`, which
// only the worker's publish step and the monitor take: never the hot path.
struct WorkerMailbox {
    std::mutex mutex;
    Histogram interval;
    uint64_t intervalComplete = 0;
    uint64_t complete = 0;
    uint64_t failed = 0;
    uint64_t bytesReceived = 0;
    uint64_t bytesSent = 0;
};

} // namespace loadscope::engine::detail
