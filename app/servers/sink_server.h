#pragma once

#include "app/servers/tcp_server.h"

namespace loadscope::app {

// The peer of tcp-stream: reads everything and discards it; stats().bytesReceived is the count.
class SinkServer final : public TcpServer {
public:
    explicit SinkServer(ServerConfig config = {});
    ~SinkServer() override;

protected:
    std::unique_ptr<ServerConnection> createConnection(ServerLoop& loop, int fd) override;
};

} // namespace loadscope::app
