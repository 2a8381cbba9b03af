#include "app/servers/sink_server.h"

#include "app/servers/server_loop.h"

#include <cerrno>
#include <sys/epoll.h>
#include <sys/socket.h>

namespace loadscope::app {

namespace {

// Reads per wake-up: a stream keeps the socket readable, and draining a few buffers per
// epoll_wait saves system calls without letting one connection starve the others.
constexpr int kReadsPerEvent = 8;

class SinkConnection final : public ServerConnection {
public:
    SinkConnection(ServerLoop& loop, int fd)
        : m_loop(loop)
        , m_fd(fd) {}
    ~SinkConnection() override { m_loop.closeDescriptor(m_fd); }

    bool open() { return m_loop.watch(m_fd, EPOLLIN, this); }

    bool onEvents(int, uint32_t) override {
        const std::span<char> scratch = m_loop.scratch();
        for (int i = 0; i < kReadsPerEvent; ++i) {
            const ssize_t received = recv(m_fd, scratch.data(), scratch.size(), 0);
            if (received == 0)
                return false;
            if (received < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
            m_loop.countReceived(size_t(received));
            if (size_t(received) < scratch.size())
                return true;
        }
        return true;
    }

private:
    ServerLoop& m_loop;
    int m_fd;
};

} // namespace

SinkServer::SinkServer(ServerConfig config)
    : TcpServer(std::move(config)) {}

SinkServer::~SinkServer() {
    stop();
}

std::unique_ptr<ServerConnection> SinkServer::createConnection(ServerLoop& loop, int fd) {
    auto connection = std::make_unique<SinkConnection>(loop, fd);
    if (!connection->open())
        return nullptr;
    return connection;
}

} // namespace loadscope::app
