#include "app/servers/tcp_proxy.h"

#include "app/servers/socket_connection.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <system_error>

namespace loadscope::app {

namespace {

// Reads per wake-up and direction: enough to move a burst without an epoll round trip per
// buffer, few enough that one busy pair cannot starve the other connections of its loop.
constexpr int kReadsPerEvent = 4;
constexpr std::chrono::seconds kReportInterval{1};

int64_t steadyNanoseconds() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

class ProxyConnection final : public ServerConnection {
public:
    ProxyConnection(TcpProxy& proxy, ServerLoop& loop, int clientFd)
        : m_proxy(proxy)
        , m_loop(loop) {
        m_client.fd = clientFd;
    }
    ~ProxyConnection() override {
        m_loop.closeDescriptor(m_client.fd);
        m_loop.closeDescriptor(m_upstream.fd);
    }

    // Starts connecting to the upstream; false when that failed already (and was reported).
    bool open() {
        const engine::SocketAddress& upstream = m_proxy.m_upstream;
        m_upstream.fd = socket(upstream.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (m_upstream.fd < 0) {
            failUpstream(errno);
            return false;
        }
        const int one = 1;
        setsockopt(m_upstream.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(m_upstream.fd, upstream.data(), upstream.length) == 0) {
            m_connecting = false;
            m_loop.countRequests(1);
        } else if (errno != EINPROGRESS) {
            failUpstream(errno);
            return false;
        }
        return sync();
    }

    bool onEvents(int fd, uint32_t events) override {
        if (m_connecting) {
            if (fd != m_upstream.fd || !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
                return true;
            int error = 0;
            socklen_t length = sizeof error;
            if (getsockopt(m_upstream.fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
                error = errno;
            if (error == 0 && (events & (EPOLLERR | EPOLLHUP)))
                error = ECONNREFUSED;
            if (error != 0) {
                failUpstream(error);
                return false;
            }
            m_connecting = false;
            m_loop.countRequests(1);
            return sync();
        }
        const bool fromClient = fd == m_client.fd;
        Side& side = fromClient ? m_client : m_upstream;
        Side& other = fromClient ? m_upstream : m_client;
        // What was read from the other side and is still pending goes to this one.
        if ((events & EPOLLOUT) && other.hasPending() && !other.pending.flush(m_loop, side.fd))
            return false;
        if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && side.canRead() && !relay(side, other))
            return false;
        if (m_client.finished() && m_upstream.finished())
            return false;
        return sync();
    }

private:
    struct Side {
        int fd = -1;
        uint32_t events = 0;
        bool watched = false;
        bool readDone = false; // this side sent its FIN
        PendingOutput pending; // read from this side, not yet taken by the other

        bool hasPending() const { return !pending.empty(); }
        bool canRead() const { return !readDone && !hasPending(); }
        bool finished() const { return readDone && !hasPending(); }
    };

    // Moves bytes from `from` to `to` until `from` has nothing more or `to` is full.
    bool relay(Side& from, Side& to) {
        for (int i = 0; i < kReadsPerEvent; ++i) {
            const SocketRead read = readSome(m_loop, from.fd);
            if (read.status == SocketRead::Status::Closed) {
                from.readDone = true;
                // Everything read before the FIN has been delivered (reading stops while
                // anything is pending), so the FIN can follow at once.
                shutdown(to.fd, SHUT_WR);
                return true;
            }
            if (read.status != SocketRead::Status::Data)
                return read.keepOpen();
            if (!from.pending.sendOrKeep(m_loop, to.fd, read.bytes))
                return false;
            if (from.hasPending() || read.bytes.size() < ServerLoop::kScratchSize)
                return true;
        }
        return true;
    }

    bool sync() {
        const uint32_t client = m_connecting
                                    ? 0u
                                    : (m_client.canRead() ? uint32_t(EPOLLIN) : 0u) |
                                          (m_upstream.hasPending() ? uint32_t(EPOLLOUT) : 0u);
        const uint32_t upstream = m_connecting
                                      ? uint32_t(EPOLLOUT)
                                      : (m_upstream.canRead() ? uint32_t(EPOLLIN) : 0u) |
                                            (m_client.hasPending() ? uint32_t(EPOLLOUT) : 0u);
        return apply(m_client, client) && apply(m_upstream, upstream);
    }

    // A side that wants nothing leaves epoll altogether: EPOLLHUP cannot be masked, and a
    // half-closed socket whose reading is paused would otherwise wake the loop forever.
    bool apply(Side& side, uint32_t wanted) {
        if (wanted == 0) {
            if (side.watched)
                m_loop.unwatch(side.fd);
            side.watched = false;
            side.events = 0;
            return true;
        }
        if (!side.watched) {
            if (!m_loop.watch(side.fd, wanted, this))
                return false;
            side.watched = true;
        } else if (wanted != side.events && !m_loop.rewatch(side.fd, wanted)) {
            return false;
        }
        side.events = wanted;
        return true;
    }

    void failUpstream(int error) {
        m_loop.countError();
        m_proxy.reportUpstreamFailure(error);
    }

    TcpProxy& m_proxy;
    ServerLoop& m_loop;
    Side m_client;
    Side m_upstream;
    bool m_connecting = true;
};

TcpProxy::TcpProxy(TcpProxyConfig config)
    : TcpServer(config)
    , m_upstreamHost(config.upstreamHost)
    , m_upstreamPort(config.upstreamPort) {}

TcpProxy::~TcpProxy() {
    stop();
}

Result<void> TcpProxy::prepare() {
    if (m_upstreamPort == 0)
        return invalidInput(QStringLiteral("the upstream needs a port other than 0"));
    std::string lookupError;
    const auto resolved = engine::resolveAddress(m_upstreamHost, m_upstreamPort, &lookupError);
    if (!resolved)
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("upstream: %1").arg(QString::fromStdString(lookupError)));
    m_upstream = *resolved;
    return {};
}

std::unique_ptr<ServerConnection> TcpProxy::createConnection(ServerLoop& loop, int fd) {
    // A connection that fails to open has closed the client: it sees EOF (or a reset) at once.
    return openConnection<ProxyConnection>(*this, loop, fd);
}

void TcpProxy::reportUpstreamFailure(int error) {
    const int64_t now = steadyNanoseconds();
    int64_t last = m_lastReportNs.load(std::memory_order_relaxed);
    const int64_t interval = std::chrono::nanoseconds(kReportInterval).count();
    if (last != 0 && now - last < interval) {
        m_unreported.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    if (!m_lastReportNs.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
        m_unreported.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    const uint64_t held = m_unreported.exchange(0, std::memory_order_relaxed);
    const std::string reason = std::generic_category().message(error);
    const std::string upstream = m_upstream.toString();
    if (held > 0)
        std::fprintf(stderr,
                     "loadscope proxy: cannot connect to upstream %s: %s; client connection "
                     "closed (%llu more failures since the last message)\n",
                     upstream.c_str(), reason.c_str(), static_cast<unsigned long long>(held));
    else
        std::fprintf(stderr,
                     "loadscope proxy: cannot connect to upstream %s: %s; client connection "
                     "closed\n",
                     upstream.c_str(), reason.c_str());
}

} // namespace loadscope::app
