#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace loadscope::engine {

// How a worker with a single connection waits for each response: blocked in
// recv (two system calls per transaction, the cheaper path when the server
// shares the client's CPU), or in epoll_wait then recv (three calls, yet
// quicker to wake on some kernels when the answer comes from another CPU).
// Which one wins depends on the placement and the kernel, so the chooser
// times both on the live traffic: a probe runs trials of each method in turn,
// and the faster is used for a long stretch, then the probe repeats in case
// conditions changed. A probe that confirms the previous winner doubles the
// stretch (up to a cap), since every probe runs the slower method for a while.
// Epoll must win by a clear margin, since on a shared machine single trials
// are noisy and recv spends less CPU for the same rate. Where the answers'
// wake-ups come from the waiting thread's own CPU (the worker says so before
// a probe: keepRecvWithoutProbe) no wake-up crosses CPUs, recv is the cheaper
// wait by construction, and the probe is skipped: its epoll trials cost the
// rate, and on a busy machine their noise chose epoll for whole stretches.
class WaitMethodChooser {
public:
    enum class Method : uint8_t { Recv, Epoll };

    struct Tuning {
        // Long trials: with 512 transactions per trial the probe across CPUs
        // mostly kept recv although epoll ran faster over whole runs; the
        // difference shows only over many wake-ups.
        uint32_t trialTransactions = 2048;    // transactions timed per trial
        uint32_t trialsPerMethod = 3;         // per probe, alternating Recv, Epoll, Recv, ...
        uint32_t chosenTransactions = 131072; // run with the winner before probing again
        uint32_t epollMarginPercent = 2;      // epoll's total must be this much smaller
        uint32_t maxStretchDoublings = 3;     // a confirmed winner runs up to 8 stretches
    };

    WaitMethodChooser() = default;
    explicit WaitMethodChooser(Tuning tuning)
        : m_tuning(tuning) {}

    Method method() const noexcept { return m_method; }
    bool probing() const noexcept { return m_probing; }
    // Transactions the current winner runs before the next probe.
    uint64_t stretchTransactions() const noexcept {
        return uint64_t(m_tuning.chosenTransactions) << std::min(m_doublings, 32u);
    }

    // Called once per completed transaction, with the loop's clock.
    void transactionCompleted(int64_t nowNs) noexcept;
    // A probe is about to run its first trial: the worker may skip it.
    bool probeStarting() const noexcept { return m_probing && m_trialsDone == 0 && m_done == 0; }
    // Recv for the next stretch without trials, as if a probe had chosen it.
    void keepRecvWithoutProbe() noexcept;

private:
    void endProbe() noexcept;

    Tuning m_tuning;
    Method m_method = Method::Recv;
    bool m_probing = true;
    std::optional<Method> m_lastWinner; // of the last probe that ended
    uint32_t m_doublings = 0;           // probes in a row that kept m_lastWinner
    uint64_t m_done = 0;                // transactions in the current trial or stretch
    uint32_t m_trialsDone = 0;          // in this probe
    int64_t m_startNs = -1;             // completion that began the current trial or stretch
    int64_t m_spentNs[2] = {0, 0};      // per method, over this probe's trials
};

} // namespace loadscope::engine
