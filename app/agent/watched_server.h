#pragma once

#include "app/agent/agent_protocol.h"
#include "engine/cpu_sampler.h"

#include <QString>
#include <optional>

namespace loadscope::app {

// Whose CPU an agent takes for the server of a watch (agent_protocol.h's
// "watch"), as its own host's /proc names it.
struct WatchedServer {
    engine::ServerCpuSource source; // empty: the window has no server figure
    // What was taken, or why nothing was: "nginx: pid 812 with its children",
    // "no process named nginx runs on this host".
    QString description;
};

// The request's PID or cgroup when it names one, else the oldest process of
// its name (with its children: a master and its workers), else its
// container's cgroup as docker or podman reports its first process. Blocks
// (a walk of /proc, `docker inspect`): call it off an event loop that must
// stay live.
WatchedServer findWatchedServer(const AgentWatchRequest& request);

// The oldest process whose name (/proc/PID/comm, which the kernel cuts to 15
// bytes) or program file name (argv[0]'s last part) is `name`; this process
// and its ancestors never match.
std::optional<int> oldestProcessNamed(const QString& name);

// The cgroup v2 directory of a process, from its /proc/PID/cgroup "0::PATH"
// line under /sys/fs/cgroup, when that directory has cpu.stat.
std::optional<QString> processCgroupDirectory(int pid);

} // namespace loadscope::app
