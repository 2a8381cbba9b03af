#pragma once

#include "app/session/target.h"
#include "engine/cpu_sampler.h"
#include "engine/socket_address.h"

#include <QString>

namespace loadscope::app {

// The process listening on a loopback address's port, as this user may see
// it: a local server found without being told. Empty for any other address.
engine::ServerCpuSource loopbackServerCpu(const engine::SocketAddress& address);

// Whose CPU is a target's server's over its points, and what to say when the
// target names a process or cgroup this machine does not have.
struct LocalServerCpu {
    engine::ServerCpuSource source; // empty: no server figure
    QString warning;                // one line, or empty
};

// The process (with its children) or cgroup the target names; without either,
// loopbackServerCpu(). A named process or cgroup that is not there gives no
// figure and a warning, never a failed sweep: the load runs all the same.
// Walks /proc: off the GUI thread.
LocalServerCpu localServerCpu(const Target& target, const engine::SocketAddress& address);

} // namespace loadscope::app
