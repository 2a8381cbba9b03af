#pragma once

#include <thread>

namespace loadscope::engine {
class LoadRun;
}

// Ctrl-C and SIGTERM during a one-shot, as ab treats them: the first stops
// the load and the command still prints the report and writes --json of what
// ran; a second one kills the process at once (the default action is back
// from the moment the first arrived).
namespace loadscope::cli {

// While it lives, SIGINT and SIGTERM cancel `run` instead of killing the
// process. The handler only records the signal and writes a byte to a pipe;
// a thread of the guard reads it and calls LoadRun::cancel(), which ends
// the run within 100 ms. Destroyed when the run has ended; the previous
// handlers come back unless a signal arrived.
class InterruptGuard {
public:
    explicit InterruptGuard(engine::LoadRun& run);
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
    std::thread m_watcher;
    bool m_installed = false;
};

// The signal (SIGINT or SIGTERM) that interrupted a run of this process, or 0.
int interruptingSignal();

// The exit status of an interrupted command, as a shell reports a process
// ended by that signal: 130 for SIGINT, 143 for SIGTERM.
int exitCodeForSignal(int signal);

} // namespace loadscope::cli
