#pragma once

#include "app/common/result.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace loadscope::app::lab {

// Rootless Podman's default network for one container namespace: slirp4netns, run in the
// server host's namespace, gives the container a tap device as its only link, and a port
// published on the server host is a socket slirp4netns listens on there, set up through its API
// socket.
class SlirpNetwork {
public:
    // Where the container's server listens: slirp4netns' guest address in its --cidr.
    static constexpr const char* kGuestAddress = "10.213.3.100";

    // Starts slirp4netns in `hostNetns` for the container namespace `containerNetns`, its link
    // `mtu` wide (at most slirp4netns' 65520), its API socket in `dir`, pinned to `cpus`, and
    // appends its pid to `helpers` (the caller stops it); returns once it has configured the
    // container, within 5 s.
    Result<void> start(int hostNetns, int containerNetns, int mtu, const std::string& dir,
                       const std::vector<int>& cpus, std::vector<pid_t>& helpers);
    // TCP connections (UDP datagrams with `datagrams`) to hostAddress:hostPort in the server
    // host go to the container's `guestPort`.
    Result<void> forwardPort(const std::string& hostAddress, uint16_t hostPort, uint16_t guestPort,
                             bool datagrams = false) const;

private:
    std::string m_socketPath;
};

} // namespace loadscope::app::lab
