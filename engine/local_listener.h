#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace loadscope::engine {

// The socket inode of the TCP listener on `port` in /proc/net/tcp or tcp6
// text, nullopt when none listens there.
std::optional<uint64_t> listeningInode(std::string_view procNetTcp, uint16_t port);

// The process that listens on TCP `port` on this machine, when this user may
// see it (its /proc/PID/fd is readable) and it is not this process: how a
// local server's CPU is found without being told. nullopt otherwise.
std::optional<int> localListenerPid(uint16_t port);

} // namespace loadscope::engine
