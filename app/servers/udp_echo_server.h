#pragma once

#include "app/servers/udp_server.h"

#include <optional>
#include <string>

namespace loadscope::app {

struct UdpEchoServerConfig : ServerConfig {
    // The size of every answer, the client's RESP (netperf UDP_RR's -r REQ,RESP); unset: each
    // datagram is sent back as it came. A datagram is a request whatever its size, so no
    // request size is needed.
    std::optional<size_t> responseSize;
};

// The peer of udp-rr: answers every datagram with one datagram to its sender. An answer of a
// set size starts with the request's own first bytes (up to its size), then filler, so that it
// carries the request's sequence number (udp_datagram.h) whenever both have room for it.
class UdpEchoServer final : public UdpServer {
public:
    explicit UdpEchoServer(UdpEchoServerConfig config = {});
    ~UdpEchoServer() override;

    std::optional<size_t> responseSize() const { return m_responseSize; }

protected:
    std::unique_ptr<DatagramHandler> createHandler() override;
    Result<void> prepare() override;

private:
    const std::optional<size_t> m_responseSize;
    std::string m_filler; // what an answer has after the request's bytes
};

} // namespace loadscope::app
