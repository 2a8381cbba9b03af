#pragma once

// What the files of SweepRunner share (sweep_runner.cpp: the sweep and its
// points; sweep_preflight.cpp: what comes before the first point): the state
// one run() works through, and the outcomes both use.
#include "app/session/session.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/point_steps.h"
#include "app/sweep/sweep_runner.h"
#include "engine/cpu_sampler.h"

#include <QHash>
#include <QPointer>
#include <QSet>
#include <optional>
#include <vector>

namespace loadscope::app {

// What one run() works through. A copy of the session: edits made while the
// sweep runs do not change what it runs.
struct SweepRunner::Sweep {
    QPointer<SweepRunner> alive;
    quint64 job = 0;
    Session session;
    std::vector<SweepPoint> missing;
    std::vector<const Target*> targets; // those with missing points, in session order
    QHash<QUuid, engine::SocketAddress> addresses;
    // Whose CPU is each target's server's (localServerCpu(), a lab mode's server).
    QHash<QUuid, engine::ServerCpuSource> serverCpu;
    QSet<QUuid> preloaded;
    SweepOutcome outcome;
    int pointsStarted = 0; // a pause goes between two points
    // The load agent of the lab targets, from before the first point to
    // after the last; not a child of the runner, as the runs.
    QPointer<AgentClient> agent;
    // The agents of the session's hosts the sweep uses, as long; null without any.
    QPointer<HostAgents> hosts;
};

namespace sweep_detail {

inline SweepOutcome failed(SweepOutcome outcome, QString error) {
    outcome.status = SweepOutcome::Status::Failed;
    outcome.error = std::move(error);
    return outcome;
}

inline SweepOutcome unreachable(SweepOutcome outcome, QString error) {
    outcome.unreachable = true;
    return failed(std::move(outcome), std::move(error));
}

inline SweepOutcome cancelled(SweepOutcome outcome) {
    outcome.status = SweepOutcome::Status::Cancelled;
    return outcome;
}

inline QString targetLabel(const Target& target) {
    return QStringLiteral("target '%1'").arg(target.displayName());
}

// A lab target's run goes to the load agent inside the lab; any other runs in this process,
// where the gate refuses a lab target.
Result<PointRun*> newPointRun(AgentClient* agent, AgentRunRequest request, engine::LoadSpec spec);

} // namespace sweep_detail

} // namespace loadscope::app
