#pragma once

#include "engine/cpu_profile.h"
#include "engine/cpu_sampler.h"

#include <memory>
#include <string>
#include <vector>

namespace loadscope::engine {

// The profile of one run: a software cpu-clock perf event per CPU, sampling
// every CPU at 1 kHz with kernel and user call chains, enabled and disabled
// at the measured window's two ends (the instants the CPU window uses), its
// ring buffers read by a sampler thread of its own. The samples are
// attributed afterwards (profile_roles.h, kernel_paths.h).
//
// The events are opened here (as root, or with kernel.perf_event_paranoid at
// 0 or below, in the machine's own user namespace), or taken from the
// descriptors the lab's sandbox hands in (LOADSCOPE_PROFILE_FDS, "CPU:FD,…"):
// inside a user namespace of its own the kernel refuses to open them.
class CpuProfiler {
public:
    // 997 Hz, not 1000: a period that is a whole number of the scheduler's
    // ticks samples in step with them, and tasks switched at a tick would be
    // seen at the same phase every time (perf's own advice: -F 99, not 100).
    static constexpr uint64_t kPeriodNs = 1'003'009;
    // A sample later than this past its timer's due instant was due while
    // its CPU was not running (the hypervisor's steal).
    static constexpr int64_t kLateNs = 100'000;
    // How far a CPU's timer may start from its share of the period before it
    // is started again at the same phase a period later (the enabling thread
    // woke late or was preempted); at most kPhaseAttempts tries, then it
    // starts where it is.
    static constexpr uint64_t kPhaseToleranceNs = 50'000;
    static constexpr int kPhaseAttempts = 8;

    explicit CpuProfiler(ServerCpuSource server);
    ~CpuProfiler();
    CpuProfiler(const CpuProfiler&) = delete;
    CpuProfiler& operator=(const CpuProfiler&) = delete;

    // Opens the events, disabled, and starts the sampler thread. False, with
    // the reason in finish()'s `unavailable`, when the kernel refuses.
    bool open();
    // Starts the CPUs' timers a period apart divided by their number (see
    // kPhaseToleranceNs): taking a sample interrupts a CPU for some
    // microseconds, and a task in a closed loop with the interrupted one (a
    // server waiting for its client's next request) is idle just after it, so
    // a CPU sampled right after another would see that idleness every time.
    // Started back to back, each timer lags the one before by the enabling
    // call's own latency (about 10 µs here), and a server on another CPU than
    // its client showed a third of its CPU time.
    void enable();
    void disable();
    // Stops the sampler after it has read everything and attributes the samples.
    CpuProfile finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// Opens one disabled cpu-clock event per online CPU, as CpuProfiler does, for
// a parent that hands them to a child (the lab's sandbox): "CPU:FD,…" for
// LOADSCOPE_PROFILE_FDS, the descriptors not closed on exec. Empty, with
// `why` set, when the kernel refuses.
struct HandedProfileEvents {
    std::vector<int> fds;
    std::string environment; // "0:5,1:6"
};
HandedProfileEvents openProfileEventsToHand(std::string* why);

// What to say when perf_event_open() failed with `error`: which limit, and what to set.
std::string profileRefusal(int error);

} // namespace loadscope::engine
