#pragma once

#include <cstdint>

namespace loadscope::engine::detail {

// How long a closed-loop worker pauses before it waits for its sockets, so
// that a busy server's responses gather while nobody waits for them.
//
// The kernel wakes a thread blocked in epoll_wait at the first write to one
// of its sockets, and the writer pays for the wake-up: on a virtual machine
// an inter-processor interrupt, several microseconds. A client quicker than
// its server is asleep again at nearly every write (an HTTP/2 response's
// HEADERS and its DATA are two), so a saturated server spends part of its
// CPU waking its client and serves fewer requests than beside a slower
// client. Sleeping on the client's own timer first, then taking what came
// without blocking, spares the server those wake-ups without spending the
// client's CPU.
//
// The pause moves no measured time: a response's time is its kernel
// receive time (stamped reads). It delays the next requests, so it is kept
// to a hundredth of the mean latency (a server with a queue loses nothing
// of it) and to kMaxPauseNs, plus the timer slack kPauseSlackNs; and it is
// taken only while responses come often enough that a pause gathers some.
class WakeCoalescer {
public:
    static constexpr int64_t kMinPauseNs = 10'000; // shorter, a timer costs what it saves
    static constexpr int64_t kMaxPauseNs = 50'000;
    // The worker's timer slack while it pauses: the kernel's default, set
    // so that a slack inherited from elsewhere does not change the pause.
    // With 25 µs the pauses gathered less, and the client spent 17 % more
    // CPU per request beside nginx over HTTP/1.1.
    static constexpr int64_t kPauseSlackNs = 50'000;
    static constexpr int64_t kLatencyShare = 100; // pause <= mean latency / kLatencyShare
    // Responses a pause must be expected to gather, at the last period's
    // rate: HTTP/2 with 10 streams on each of 5 connections gathers half a
    // response per pause and spares nginx a quarter of its CPU per request.
    static constexpr double kResponsesPerPause = 0.25;

    // `enabled`: the worker may pause at all (a closed loop that the spec
    // lets pause); disabled, the pause stays 0.
    explicit WakeCoalescer(bool enabled)
        : m_enabled(enabled) {}
    bool enabled() const { return m_enabled; }
    // Each response that ends a request, with its latency.
    void onResponse(int64_t latencyNs) {
        ++m_responses;
        m_latencySumNs += latencyNs;
    }
    // Sets the pause from the responses since the previous call; `now` on
    // the loop's clock, every few milliseconds.
    void update(int64_t now);
    int64_t pauseNs() const { return m_pauseNs; } // 0: none

private:
    bool m_enabled;
    int64_t m_sinceNs = 0;
    uint64_t m_responses = 0;
    int64_t m_latencySumNs = 0;
    int64_t m_pauseNs = 0;
};

} // namespace loadscope::engine::detail
