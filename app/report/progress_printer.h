#pragma once

#include "engine/progress.h"

#include <cstdint>
#include <cstdio>
#include <memory>

namespace loadscope::app {

// Prints a run's progress on `stream` (stderr) as ab does: "Completed N requests" at
// every tenth of a counted run or every second of a timed one; on a terminal
// one line that updates in place, with the current rate. Called on the thread
// of the PointRun that relays the engine's progress (cli::OneShotRunner).
class ProgressPrinter {
public:
    ProgressPrinter(uint64_t requests, double seconds, bool quiet, FILE* stream = stderr);
    void update(const std::shared_ptr<const engine::Progress>& progress);
    void finish(uint64_t complete);

private:
    uint64_t m_requests;
    double m_seconds;
    bool m_quiet;
    FILE* m_stream;
    bool m_terminal;
    uint64_t m_nextMark;
    double m_nextSecond = 1;
};

} // namespace loadscope::app
