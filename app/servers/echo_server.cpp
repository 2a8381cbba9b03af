#include "app/servers/echo_server.h"

#include "app/servers/socket_connection.h"

#include <algorithm>
#include <optional>
#include <sys/epoll.h>
#include <sys/socket.h>

namespace loadscope::app {

namespace {

constexpr size_t kFillerSize = 64 * 1024;

} // namespace

class EchoConnection final : public SocketConnection {
public:
    EchoConnection(const EchoServer& server, ServerLoop& loop, int fd, SSL* tls)
        : SocketConnection(loop, fd, tls)
        , m_server(server) {
        // Until the first byte: a request may be large and slow to arrive, so only a client
        // that sends nothing at all is held to the header timeout; the idle timeout covers the
        // rest. With TLS it covers the handshake as well.
        headStarted(loop.now());
    }

    bool onEvents(int, uint32_t events) override {
        if (handshaking()) {
            if (const std::optional<bool> keepOpen = continueHandshake())
                return *keepOpen;
            // A request may be in the socket already; level-triggered, it reports it.
            return updateInterest(EPOLLIN);
        }
        if ((events & EPOLLOUT) && !flush())
            return false;
        if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && watching(EPOLLIN) && !receive())
            return false;
        if (m_peerClosed && !hasOutput()) {
            // Everything owed for the requests before the client's FIN has been sent.
            closeWrite();
            return false;
        }
        // While output is stuck the client is not reading; reading on would only pile up more.
        return updateInterest(hasOutput()    ? uint32_t(EPOLLOUT)
                              : m_peerClosed ? 0u
                                             : uint32_t(EPOLLIN));
    }

private:
    bool hasOutput() const { return m_owed > 0 || !m_pending.empty(); }

    bool receive() {
        const SocketRead read = readSocket();
        if (read.status == SocketRead::Status::Closed) {
            m_peerClosed = true;
            return true;
        }
        if (read.status != SocketRead::Status::Data)
            return read.keepOpen();
        headCompleted();
        const size_t total = m_partial + read.bytes.size();
        const size_t responses = total / m_server.m_requestSize;
        m_partial = total % m_server.m_requestSize;
        m_loop.countRequests(responses);
        // Mirrored, the responses concatenated are the request stream itself: no framing needed.
        if (m_server.mirrors())
            return m_pending.sendOrKeep(m_loop, m_fd, read.bytes, tls());
        m_owed += uint64_t(responses) * m_server.m_responseSize;
        return flush();
    }

    bool flush() {
        if (!m_pending.flush(m_loop, m_fd, tls()))
            return false;
        while (m_pending.empty() && m_owed > 0) {
            const size_t chunk = size_t(std::min<uint64_t>(m_owed, m_server.m_filler.size()));
            const ssize_t sent = writeSocket(m_server.m_filler.data(), chunk);
            if (sent < 0)
                return wouldBlock();
            m_loop.countSent(size_t(sent));
            m_owed -= uint64_t(sent);
        }
        return true;
    }

    const EchoServer& m_server;
    bool m_peerClosed = false;
    size_t m_partial = 0;    // bytes of the current request received so far
    uint64_t m_owed = 0;     // filler bytes still to send
    PendingOutput m_pending; // mirrored bytes the socket did not take yet
};

EchoServer::EchoServer(EchoServerConfig config)
    : TcpServer(config)
    , m_requestSize(config.requestSize)
    , m_responseSize(config.responseSize)
    , m_tlsConfig(config)
    , m_filler(kFillerSize, 'r') {}

EchoServer::~EchoServer() {
    stop();
}

Result<void> EchoServer::prepare() {
    if (auto tls = prepareTls(m_tlsConfig, false, m_tls); !tls)
        return tls;
    if (m_requestSize >= 1 && m_requestSize <= kMaxMessageSize && m_responseSize >= 1 &&
        m_responseSize <= kMaxMessageSize)
        return {};
    return invalidInput(QStringLiteral("request and response sizes must be from 1 to %1 bytes")
                            .arg(kMaxMessageSize));
}

std::unique_ptr<ServerConnection> EchoServer::createConnection(ServerLoop& loop, int fd) {
    const std::optional<SSL*> tls = acceptTls(m_tls.get(), loop, fd);
    if (!tls)
        return nullptr;
    return openConnection<EchoConnection>(*this, loop, fd, *tls);
}

} // namespace loadscope::app
