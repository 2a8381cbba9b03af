#include "app/servers/sink_server.h"

#include "app/servers/socket_connection.h"

namespace loadscope::app {

namespace {

// Reads per wake-up: a stream keeps the socket readable, and draining a few buffers per
// epoll_wait saves system calls without letting one connection starve the others.
constexpr int kReadsPerEvent = 8;

class SinkConnection final : public SocketConnection {
public:
    using SocketConnection::SocketConnection;

    bool onEvents(int, uint32_t) override {
        for (int i = 0; i < kReadsPerEvent; ++i) {
            const SocketRead read = readSome(m_loop, m_fd);
            if (read.status != SocketRead::Status::Data)
                return read.keepOpen();
            if (read.bytes.size() < ServerLoop::kScratchSize)
                return true;
        }
        return true;
    }
};

} // namespace

SinkServer::SinkServer(ServerConfig config)
    : TcpServer(std::move(config)) {}

SinkServer::~SinkServer() {
    stop();
}

std::unique_ptr<ServerConnection> SinkServer::createConnection(ServerLoop& loop, int fd) {
    return openConnection<SinkConnection>(loop, fd);
}

} // namespace loadscope::app
