#pragma once

#include "app/agent/agent_protocol.h"
#include "app/remote/agent_merge.h"
#include "app/remote/clock_offset.h"
#include "app/sweep/point_run.h"

#include <QPointer>
#include <QString>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace loadscope::app {

class AgentClient;
class AgentPointRun;

// One host's agent and its share of a point.
struct HostLoad {
    QString host; // the session's name of the host
    QPointer<AgentClient> agent;
    ClockOffset clock;
    AgentRunRequest request; // its share; startAtUs is set by the run
};

// What each host did of a point, kept beside the merged result (and in
// place of it when one host failed).
struct HostPartOutcome {
    QString host;
    QString software;
    ClockOffset clock;
    std::optional<engine::RunResult> run; // what it measured; cancelled when another failed
    int64_t measuredFromUs = 0;           // its measured start on its own clock; 0: unknown
    QString error;                        // why it failed the point; empty when it did not
    PartSpan span;                        // on this machine's clock, after the common start
};

// The moment, on this machine's clock (µs since the epoch), for hosts to
// start a point together: far enough ahead for the run request to reach the
// slowest of them (twice its round trip) and its spec to be built.
int64_t commonStartUs(const std::vector<HostLoad>& loads);

// A point loaded from several hosts at once (Target::loadFrom): each host's
// agent runs its share, starting at `startUs` on this machine's clock (told to
// each agent on its own clock, by its measured offset), and the result is the
// parts' exact merge (mergeAgentRuns()). Progress is the parts' latest
// snapshots added up. One agent failing (its ssh, its process, a refusal, a
// server it cannot reach) fails the point with one line naming the host; the
// others are cancelled and what they measured is kept in `outcome`.
class MultiAgentPointRun : public PointRun {
    Q_OBJECT

public:
    MultiAgentPointRun(std::vector<HostLoad> loads, int64_t startUs,
                       std::shared_ptr<std::vector<HostPartOutcome>> outcome);
    ~MultiAgentPointRun() override;

    void start() override;
    void cancel() noexcept override;
    QCoro::Task<Result<engine::RunResult>> result() override;

private:
    void partFinished(size_t index, Result<engine::RunResult> ran);
    void partProgress(size_t index, std::shared_ptr<const engine::Progress> progress);
    void finishIfDone();

    std::vector<HostLoad> m_loads;
    int64_t m_startUs = 0;
    std::shared_ptr<std::vector<HostPartOutcome>> m_outcome;
    std::vector<QPointer<AgentPointRun>> m_runs;
    std::vector<bool> m_done;
    std::vector<std::shared_ptr<const engine::Progress>> m_latest;
    std::chrono::steady_clock::time_point m_lastProgress{};
    QString m_failure; // the first host's failure
    bool m_started = false;
    bool m_finished = false;
    std::optional<Result<engine::RunResult>> m_result;
};

} // namespace loadscope::app
