#pragma once

#include "app/common/result.h"
#include "engine/socket_address.h"

#include <QString>
#include <cstdint>
#include <optional>

namespace loadscope::app {

// Where the agent runs, as far as its safety rule is concerned.
struct AgentEnvironment {
    // LOADSCOPE_LAB_HOST_NETNS: the machine's own network namespace inode, set
    // by `loadscope-cli lab sandbox` for the agent it starts.
    std::optional<uint64_t> labHostNetns;
    QString labRange;      // LOADSCOPE_LAB_RANGE, "10.213.0.0/16"
    uint64_t ownNetns = 0; // inode of /proc/self/ns/net; 0 when unreadable

    static AgentEnvironment current();
};

// Nothing when the agent may send load to `address`: loopback (127.0.0.0/8,
// ::1) always; anything else only inside the lab, that is when
// LOADSCOPE_LAB_HOST_NETNS is set, the agent's own network namespace is not
// that one, and the address lies in LOADSCOPE_LAB_RANGE. Otherwise one line
// naming the address and the rule it breaks.
Result<void> checkAgentTarget(const engine::SocketAddress& address, const AgentEnvironment& env);

} // namespace loadscope::app
