#pragma once

#include "app/servers/udp_server.h"

namespace loadscope::app {

// The peer of udp-stream: reads and discards every datagram, and counts the messages of each
// stream (by the stream header, udp_datagram.h): datagrams, bytes, those that came after a
// higher sequence (out of order) and those that came twice. A count query is answered with its
// stream's count, so that the client learns what arrived, as netperf's receive side. The
// counts of at most kMaxStreams streams per loop are kept; a new stream beyond them forgets the
// one that has been silent longest.
class UdpSinkServer final : public UdpServer {
public:
    static constexpr size_t kMaxStreams = 4096;

    explicit UdpSinkServer(ServerConfig config = {});
    ~UdpSinkServer() override;

protected:
    std::unique_ptr<DatagramHandler> createHandler() override;
};

} // namespace loadscope::app
