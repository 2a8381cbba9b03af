#pragma once

#include "app/servers/tcp_server.h"
#include "engine/socket_address.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace loadscope::app {

struct TcpProxyConfig : ServerConfig {
    std::string upstreamHost = "127.0.0.1"; // resolved once, at start()
    uint16_t upstreamPort = 0;
};

// A userland TCP relay, as a container engine runs for a published port: each accepted client
// gets its own non-blocking connection to the upstream, and bytes flow both ways until both
// sides have finished. Backpressure: a side is not read while the bytes read from it are still
// waiting for the other side to take them, so each direction buffers at most one read. A FIN is
// passed on as shutdown(SHUT_WR) once the bytes before it are delivered; an error on either side
// closes both. When the upstream cannot be reached the client's connection is closed and one
// line goes to stderr (at most one per second, with a count of the lines held back).
class TcpProxy final : public TcpServer {
public:
    explicit TcpProxy(TcpProxyConfig config);
    ~TcpProxy() override;

    // "127.0.0.1:9000"; valid after start().
    std::string upstreamAddress() const { return m_upstream.toString(); }

protected:
    std::unique_ptr<ServerConnection> createConnection(ServerLoop& loop, int fd) override;
    Result<void> prepare() override;

private:
    friend class ProxyConnection;
    void reportUpstreamFailure(int error);

    const std::string m_upstreamHost;
    const uint16_t m_upstreamPort;
    engine::SocketAddress m_upstream; // written by prepare() before any loop runs
    std::atomic<int64_t> m_lastReportNs{0};
    std::atomic<uint64_t> m_unreported{0};
};

} // namespace loadscope::app
