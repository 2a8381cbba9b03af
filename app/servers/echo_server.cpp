#include "app/servers/echo_server.h"

#include "app/servers/server_loop.h"

#include <algorithm>
#include <cerrno>
#include <sys/epoll.h>
#include <sys/socket.h>

namespace loadscope::app {

namespace {

constexpr size_t kFillerSize = 64 * 1024;

bool wouldBlock() {
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

} // namespace

class EchoConnection final : public ServerConnection {
public:
    EchoConnection(const EchoServer& server, ServerLoop& loop, int fd)
        : m_server(server)
        , m_loop(loop)
        , m_fd(fd) {}
    ~EchoConnection() override { m_loop.closeDescriptor(m_fd); }

    bool open() {
        m_events = EPOLLIN;
        return m_loop.watch(m_fd, m_events, this);
    }

    bool onEvents(int, uint32_t events) override {
        if ((events & EPOLLOUT) && !flush())
            return false;
        if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && (m_events & EPOLLIN) && !receive())
            return false;
        if (m_peerClosed && !hasOutput()) {
            // Everything owed for the requests before the client's FIN has been sent.
            shutdown(m_fd, SHUT_WR);
            return false;
        }
        return updateInterest();
    }

private:
    bool hasOutput() const { return m_owed > 0 || m_pendingOffset < m_pending.size(); }

    bool receive() {
        const std::span<char> scratch = m_loop.scratch();
        const ssize_t received = recv(m_fd, scratch.data(), scratch.size(), 0);
        if (received == 0) {
            m_peerClosed = true;
            return true;
        }
        if (received < 0)
            return wouldBlock();
        const size_t size = size_t(received);
        m_loop.countReceived(size);

        if (m_server.mirrors()) {
            // Responses concatenated are the request stream itself, so no framing is needed.
            const size_t total = m_partial + size;
            m_loop.countRequests(total / m_server.m_requestSize);
            m_partial = total % m_server.m_requestSize;
            const ssize_t sent = send(m_fd, scratch.data(), size, MSG_NOSIGNAL);
            if (sent < 0 && !wouldBlock())
                return false;
            const size_t done = sent > 0 ? size_t(sent) : 0;
            m_loop.countSent(done);
            if (done < size) {
                m_pending.assign(scratch.data() + done, size - done);
                m_pendingOffset = 0;
            }
            return true;
        }
        const size_t total = m_partial + size;
        const size_t responses = total / m_server.m_requestSize;
        m_partial = total % m_server.m_requestSize;
        m_owed += uint64_t(responses) * m_server.m_responseSize;
        m_loop.countRequests(responses);
        return flush();
    }

    bool flush() {
        while (m_pendingOffset < m_pending.size()) {
            const ssize_t sent = send(m_fd, m_pending.data() + m_pendingOffset,
                                      m_pending.size() - m_pendingOffset, MSG_NOSIGNAL);
            if (sent < 0)
                return wouldBlock();
            m_loop.countSent(size_t(sent));
            m_pendingOffset += size_t(sent);
        }
        m_pending.clear();
        m_pendingOffset = 0;
        while (m_owed > 0) {
            const size_t chunk = size_t(std::min<uint64_t>(m_owed, m_server.m_filler.size()));
            const ssize_t sent = send(m_fd, m_server.m_filler.data(), chunk, MSG_NOSIGNAL);
            if (sent < 0)
                return wouldBlock();
            m_loop.countSent(size_t(sent));
            m_owed -= uint64_t(sent);
        }
        return true;
    }

    bool updateInterest() {
        // While output is stuck the client is not reading; reading on would only pile up more.
        const uint32_t wanted = hasOutput()    ? uint32_t(EPOLLOUT)
                                : m_peerClosed ? 0u
                                               : uint32_t(EPOLLIN);
        if (wanted == m_events)
            return true;
        m_events = wanted;
        return m_loop.rewatch(m_fd, wanted);
    }

    const EchoServer& m_server;
    ServerLoop& m_loop;
    int m_fd;
    uint32_t m_events = 0;
    bool m_peerClosed = false;
    size_t m_partial = 0;  // bytes of the current request received so far
    uint64_t m_owed = 0;   // filler bytes still to send
    std::string m_pending; // mirrored bytes the socket did not take yet
    size_t m_pendingOffset = 0;
};

EchoServer::EchoServer(EchoServerConfig config)
    : TcpServer(config)
    , m_requestSize(config.requestSize)
    , m_responseSize(config.responseSize)
    , m_filler(kFillerSize, 'r') {}

EchoServer::~EchoServer() {
    stop();
}

bool EchoServer::prepare(std::string* error) {
    if (m_requestSize >= 1 && m_requestSize <= kMaxMessageSize && m_responseSize >= 1 &&
        m_responseSize <= kMaxMessageSize)
        return true;
    *error = "request and response sizes must be from 1 to " + std::to_string(kMaxMessageSize) +
             " bytes";
    return false;
}

std::unique_ptr<ServerConnection> EchoServer::createConnection(ServerLoop& loop, int fd) {
    auto connection = std::make_unique<EchoConnection>(*this, loop, fd);
    if (!connection->open())
        return nullptr;
    return connection;
}

} // namespace loadscope::app
