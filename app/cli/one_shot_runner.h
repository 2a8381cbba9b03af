#pragma once

#include "app/cli/cli_common.h"
#include "app/cli/host_options.h"
#include "app/cli/one_shot.h"
#include "app/cli/stop_signals.h"
#include "app/remote/multi_agent_point_run.h"
#include "engine/load_spec.h"
#include "engine/run_result.h"

#include <QUuid>
#include <memory>
#include <optional>
#include <vector>

namespace loadscope::app {
class HostAgents;
class PointRun;
} // namespace loadscope::app

namespace loadscope::cli {

// A one-shot's load sent from other hosts (--agents): the hosts, how to
// reach them, and the one-shot as their agents build it.
struct RemoteLoad {
    std::vector<app::Host> hosts;
    HostOptions options;
    OneShot shot;
};

// The remote load of a command's invocation, when it names --agents.
template <typename Invocation>
std::optional<RemoteLoad> remoteLoadOf(const Invocation& invocation) {
    if (invocation.output.agents.empty())
        return std::nullopt;
    RemoteLoad remote{invocation.output.agents, invocation.output.hostOptions, invocation.shot};
    // The agent protocol carries a target as a session holds one: with an id.
    if (remote.shot.target.id.isNull())
        remote.shot.target.id = QUuid::createUuid();
    return remote;
}

// Runs a one-shot's specs (a preload, then the measured run) one after the
// other, each through the PointRun a sweep point runs through in this process
// (app::LoadRunBridge), on this thread's event loop, with ab-style progress
// on io.err. Ctrl-C and SIGTERM as ab treats them: the first stops the run in
// progress, which still returns what it measured (the command prints the
// report and writes --json of what ran), and a run asked for after it does
// not start (its result is empty and cancelled); a second signal ends the process at once
// (StopSignals). Made before the first run: the signals are blocked from then on, in every engine
// thread.
//
// With a RemoteLoad the runs go to the hosts' agents over ssh instead (one
// connection per host, opened at the first run): the measured run is split
// over them and merged (app::MultiAgentPointRun), a preload runs on the first
// host. A host that cannot be reached or fails ends the run as unreachable,
// its first error the one line naming the host.
class OneShotRunner {
public:
    explicit OneShotRunner(const CliIo& io, std::optional<RemoteLoad> remote = std::nullopt);
    ~OneShotRunner();
    OneShotRunner(const OneShotRunner&) = delete;
    OneShotRunner& operator=(const OneShotRunner&) = delete;

    // `quiet`: no progress lines. `preload`: `spec` is the memcached preload.
    engine::RunResult run(engine::LoadSpec spec, bool quiet, bool preload = false);
    // The signal (SIGINT or SIGTERM) that interrupted a run, or 0.
    int interruptingSignal() const { return m_signals.firstSignal(); }
    const CliIo& io() const { return m_io; }
    // With a RemoteLoad: each host's part of the last measured run.
    const std::vector<app::HostPartOutcome>& hostParts() const { return m_parts; }
    // The same as a result keeps them (each host's run judged for noise on its own machine).
    std::vector<app::AgentShare> hostShares() const;

private:
    engine::RunResult runOnHosts(const engine::LoadSpec& spec, bool quiet, bool preload);

    const CliIo& m_io;
    app::PointRun* m_running = nullptr;
    StopSignals m_signals;
    std::optional<RemoteLoad> m_remote;
    std::unique_ptr<app::HostAgents> m_hosts;
    std::optional<app::Error> m_hostsFailed;
    std::vector<app::HostPartOutcome> m_parts;
};

} // namespace loadscope::cli
