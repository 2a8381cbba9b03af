#pragma once

#include "app/cli/cli_common.h"
#include "app/cli/stop_signals.h"
#include "engine/load_spec.h"
#include "engine/run_result.h"

namespace loadscope::app {
class PointRun;
}

namespace loadscope::cli {

// Runs a one-shot's specs (a preload, then the measured run) one after the
// other, each through the PointRun a sweep point runs through in this process
// (app::LoadRunBridge), on this thread's event loop, with ab-style progress
// on io.err. Ctrl-C and SIGTERM as ab treats them: the first stops the run in
// progress, which still returns what it measured (the command prints the
// report and writes --json of what ran), and a run asked for after it does
// not start (its result is empty and cancelled); a second signal ends the process at once
// (StopSignals). Made before the first run: the signals are blocked from then on, in every engine
// thread.
class OneShotRunner {
public:
    explicit OneShotRunner(const CliIo& io);
    OneShotRunner(const OneShotRunner&) = delete;
    OneShotRunner& operator=(const OneShotRunner&) = delete;

    // `quiet`: no progress lines.
    engine::RunResult run(engine::LoadSpec spec, bool quiet);
    // The signal (SIGINT or SIGTERM) that interrupted a run, or 0.
    int interruptingSignal() const { return m_signals.firstSignal(); }
    const CliIo& io() const { return m_io; }

private:
    const CliIo& m_io;
    app::PointRun* m_running = nullptr;
    StopSignals m_signals;
};

} // namespace loadscope::cli
