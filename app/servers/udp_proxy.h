#pragma once

#include "app/servers/udp_server.h"
#include "engine/socket_address.h"

#include <string>

namespace loadscope::app {

struct UdpProxyConfig : ServerConfig {
    std::string upstreamHost = "127.0.0.1"; // resolved once, at start()
    uint16_t upstreamPort = 0;
};

// A userland UDP relay, as a container engine runs for a published UDP port (docker-proxy
// -proto udp): each client address gets its own socket connected to the upstream; the client's
// datagrams go up through it, and what comes back on it goes to that client from the listening
// socket. A flow on which nothing moved for the idle timeout is forgotten (ServerConfig's; 0:
// never), and a loop keeps at most kMaxFlows, forgetting the longest idle first. A datagram the
// upstream's socket cannot take at once is dropped and counted, as a router would.
class UdpProxy final : public UdpServer {
public:
    static constexpr size_t kMaxFlows = 4096;

    explicit UdpProxy(UdpProxyConfig config);
    ~UdpProxy() override;

    std::string upstreamAddress() const { return m_upstream.toString(); }

protected:
    Result<void> prepare() override;
    void serveSocket(int fd, DatagramHandler* handler, UdpLoopCounters& counters,
                     const std::atomic<bool>& stopping) override;

private:
    const std::string m_upstreamHost;
    const uint16_t m_upstreamPort;
    engine::SocketAddress m_upstream; // written by prepare() before any loop runs
};

} // namespace loadscope::app
