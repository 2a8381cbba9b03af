#pragma once

#include <csignal>
#include <functional>
#include <memory>

class QSocketNotifier;

namespace loadscope::cli {

// The exit status of a sweep stopped by SIGINT or SIGTERM, as a shell reports
// a command killed by SIGINT.
inline constexpr int kExitInterrupted = 130;

// The exit status of a command that `signal` (SIGINT or SIGTERM) interrupted,
// as a shell reports a process ended by that signal: 130 or 143.
inline constexpr int exitCodeForSignal(int signal) {
    return 128 + signal;
}

// Turns SIGINT and SIGTERM into a call on the event loop: the signals are
// blocked before any engine thread exists (threads inherit the mask) and
// read from a signalfd, so no handler ever runs on an engine thread. A second
// signal ends the process at once, with the status a shell reports for a
// command killed by it (130 for SIGINT, 143 for SIGTERM).
class StopSignals {
public:
    explicit StopSignals(std::function<void()> onFirst);
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // SIGINT or SIGTERM, whichever came first, or 0.
    int firstSignal() const { return m_first; }

private:
    sigset_t m_mask{};
    sigset_t m_previous{};
    int m_fd = -1;
    int m_first = 0;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace loadscope::cli
