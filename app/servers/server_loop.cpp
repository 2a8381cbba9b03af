#include "app/servers/server_loop.h"

#include "app/servers/tcp_server.h"
#include "engine/broken_pipe.h"
#include "engine/vector_state.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::app {

namespace {

// Few enough that a burst of connects is spread over the loops instead of landing on the first
// one to wake, yet enough to keep accept() from costing an epoll round trip per connection.
constexpr int kAcceptBatch = 8;
constexpr int kEventBatch = 256;
// Out of descriptors: accepting again at once would spin on the still-pending connection.
constexpr std::chrono::milliseconds kAcceptPause{100};
// At the descriptor limit, only a connection that has waited this long is closed for a newcomer:
// a busy client between two requests is not a slow one.
constexpr int64_t kMinWaitBeforeEvictionNs = 200'000'000;
// Timeouts are checked a few times per shortest timeout, within these bounds: a connection
// overstays by at most a quarter of its timeout, and a scan of every connection runs at most
// once per 10 ms.
constexpr int64_t kMinExpiryPeriodNs = 10'000'000;
constexpr int64_t kMaxExpiryPeriodNs = 1'000'000'000;

int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int64_t nanoseconds(std::chrono::milliseconds ms) {
    return ms.count() > 0 ? int64_t(ms.count()) * 1'000'000 : 0;
}

int64_t expiryPeriod(int64_t headerNs, int64_t idleNs) {
    const int64_t shortest = headerNs == 0 ? idleNs
                             : idleNs == 0 ? headerNs
                                           : std::min(headerNs, idleNs);
    if (shortest == 0)
        return 0;
    return std::clamp(shortest / 4, kMinExpiryPeriodNs, kMaxExpiryPeriodNs);
}

int openReserve() {
    return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

} // namespace

ServerLoop::ServerLoop(TcpServer& server, int listenFd, int wakeFd,
                       const std::atomic<bool>& stopping)
    : m_server(server)
    , m_listenFd(listenFd)
    , m_wakeFd(wakeFd)
    , m_stopping(stopping)
    , m_headerTimeoutNs(nanoseconds(server.config().headerTimeout))
    , m_idleTimeoutNs(nanoseconds(server.config().idleTimeout))
    , m_expiryPeriodNs(expiryPeriod(m_headerTimeoutNs, m_idleTimeoutNs))
    , m_nowNs(steadyNs())
    , m_scratch(std::make_unique<char[]>(kScratchSize)) {}

ServerLoop::~ServerLoop() {
    m_connections.clear();
    if (m_epollFd >= 0)
        ::close(m_epollFd);
    if (m_reserveFd >= 0)
        ::close(m_reserveFd);
}

bool ServerLoop::open() {
    m_reserveFd = openReserve(); // without one, accept at the limit pauses as before
    m_epollFd = epoll_create1(EPOLL_CLOEXEC);
    if (m_epollFd < 0)
        return false;
    epoll_event wake{};
    wake.events = EPOLLIN;
    wake.data.fd = m_wakeFd;
    epoll_event listen{};
    listen.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen.data.fd = m_listenFd;
    return epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_wakeFd, &wake) == 0 &&
           epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_listenFd, &listen) == 0;
}

void ServerLoop::run() {
    // As a load worker: do not carry the starting thread's vector state into every switch.
    engine::clearUpperVectorState();
    // A client gone in the middle of a TLS response: EPIPE, not the end of the process.
    engine::blockBrokenPipeOnThisThread();
    epoll_event events[kEventBatch];
    while (!m_stopping.load(std::memory_order_acquire)) {
        const int count = epoll_wait(m_epollFd, events, kEventBatch, waitTimeoutMs());
        m_nowNs = steadyNs();
        if (count < 0) {
            if (errno == EINTR)
                continue;
            std::fprintf(stderr, "loadscope server: epoll_wait failed: %s\n", std::strerror(errno));
            break;
        }
        bool acceptPending = false;
        for (int i = 0; i < count; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_wakeFd)
                continue; // the loop condition sees the stop flag
            if (fd == m_listenFd) {
                // Accepted last: a descriptor closed in this batch may be reused by accept(),
                // and the batch's remaining events for the old one must not reach the new one.
                acceptPending = true;
                continue;
            }
            ServerConnection* owner = size_t(fd) < m_owners.size() ? m_owners[size_t(fd)] : nullptr;
            if (!owner)
                continue;
            owner->m_activeAtNs = m_nowNs;
            if (!owner->onEvents(fd, events[i].events))
                destroy(owner);
        }
        if (acceptPending && !m_stopping.load(std::memory_order_acquire))
            acceptSome();
        resumeAcceptingIfDue();
        if (m_expiryPeriodNs > 0 && m_nowNs >= m_nextExpiryNs) {
            m_nextExpiryNs = m_nowNs + m_expiryPeriodNs;
            expireConnections();
        }
    }
    m_connections.clear();
    m_counters.activeConnections.store(0, std::memory_order_relaxed);
}

bool ServerLoop::watch(int fd, uint32_t events, ServerConnection* owner) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, fd, &event) != 0)
        return false;
    if (size_t(fd) >= m_owners.size())
        m_owners.resize(size_t(fd) + 64, nullptr);
    m_owners[size_t(fd)] = owner;
    return true;
}

bool ServerLoop::rewatch(int fd, uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(m_epollFd, EPOLL_CTL_MOD, fd, &event) == 0;
}

void ServerLoop::unwatch(int fd) {
    epoll_ctl(m_epollFd, EPOLL_CTL_DEL, fd, nullptr);
    if (size_t(fd) < m_owners.size())
        m_owners[size_t(fd)] = nullptr;
}

void ServerLoop::closeDescriptor(int& fd) {
    if (fd < 0)
        return;
    if (size_t(fd) < m_owners.size())
        m_owners[size_t(fd)] = nullptr;
    ::close(fd);
    fd = -1;
}

void ServerLoop::acceptSome() {
    for (int i = 0; i < kAcceptBatch; ++i) {
        const int fd = accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            adopt(fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
            continue;
        if ((errno == EMFILE || errno == ENFILE) && m_reserveFd >= 0) {
            if (acceptAtLimit())
                continue;
            return;
        }
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            countError();
            pauseAccepting();
        }
        return; // EAGAIN: another loop took it
    }
}

void ServerLoop::adopt(int fd) {
    // Responses are written whole; Nagle would only delay the tail of a partial write.
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bump(m_counters.connections, 1);
    std::unique_ptr<ServerConnection> connection = m_server.createConnection(*this, fd);
    if (!connection)
        return;
    connection->m_activeAtNs = m_nowNs;
    ServerConnection* key = connection.get();
    m_connections.emplace(key, std::move(connection));
    bump(m_counters.activeConnections, 1);
}

bool ServerLoop::acceptAtLimit() {
    ::close(m_reserveFd);
    m_reserveFd = -1;
    const int fd = accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    const int acceptError = errno;
    if (fd >= 0) {
        countError(); // a connection closed before it was done, one way or the other
        if (ServerConnection* victim = oldestWaiting()) {
            destroy(victim); // frees at least one descriptor, which the reserve takes back
            m_reserveFd = openReserve();
            adopt(fd);
        } else {
            // Every connection is at work: the newcomer is told at once, not left to time out.
            ::close(fd);
            m_reserveFd = openReserve();
        }
    } else {
        m_reserveFd = openReserve();
    }
    if (m_reserveFd < 0 || (fd < 0 && acceptError != EAGAIN && acceptError != EWOULDBLOCK)) {
        countError();
        pauseAccepting();
        return false;
    }
    return fd >= 0;
}

ServerConnection* ServerLoop::oldestWaiting() const {
    // A connection still waiting for a request head first (slowloris), then the longest idle.
    ServerConnection* slowest = nullptr;
    ServerConnection* idlest = nullptr;
    for (const auto& [key, connection] : m_connections) {
        const int64_t head = connection->m_headSinceNs;
        if (head != 0 && m_nowNs - head >= kMinWaitBeforeEvictionNs &&
            (!slowest || head < slowest->m_headSinceNs))
            slowest = key;
        const int64_t active = connection->m_activeAtNs;
        if (m_nowNs - active >= kMinWaitBeforeEvictionNs &&
            (!idlest || active < idlest->m_activeAtNs))
            idlest = key;
    }
    return slowest ? slowest : idlest;
}

void ServerLoop::expireConnections() {
    m_expired.clear();
    for (const auto& [key, connection] : m_connections) {
        const int64_t head = connection->m_headSinceNs;
        if ((m_headerTimeoutNs > 0 && head != 0 && m_nowNs - head >= m_headerTimeoutNs) ||
            (m_idleTimeoutNs > 0 && m_nowNs - connection->m_activeAtNs >= m_idleTimeoutNs))
            m_expired.push_back(key);
    }
    for (ServerConnection* connection : m_expired)
        destroy(connection);
}

void ServerLoop::pauseAccepting() {
    if (m_acceptPaused)
        return;
    epoll_ctl(m_epollFd, EPOLL_CTL_DEL, m_listenFd, nullptr);
    m_acceptPaused = true;
    m_acceptResumeAt = std::chrono::steady_clock::now() + kAcceptPause;
}

void ServerLoop::resumeAcceptingIfDue() {
    if (!m_acceptPaused || std::chrono::steady_clock::now() < m_acceptResumeAt)
        return;
    epoll_event listen{};
    listen.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen.data.fd = m_listenFd;
    if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_listenFd, &listen) == 0)
        m_acceptPaused = false;
    else
        m_acceptResumeAt = std::chrono::steady_clock::now() + kAcceptPause;
}

int ServerLoop::waitTimeoutMs() const {
    int timeout = -1;
    if (m_acceptPaused) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            m_acceptResumeAt - std::chrono::steady_clock::now());
        timeout = left.count() > 0 ? int(left.count()) : 0;
    }
    if (m_expiryPeriodNs > 0) {
        // From the clock of the last wake-up (no clock read here: the scan may run a little
        // late by the batch's handling time), rounded up so as not to wake just before it is due.
        const int64_t left = std::max<int64_t>(0, m_nextExpiryNs - m_nowNs);
        const int expiry = int((left + 999'999) / 1'000'000);
        timeout = timeout < 0 ? expiry : std::min(timeout, expiry);
    }
    return timeout;
}

void ServerLoop::destroy(ServerConnection* connection) {
    const auto found = m_connections.find(connection);
    if (found == m_connections.end())
        return;
    // Counted down before the descriptors close, so that a client seeing the close also sees
    // the count.
    bump(m_counters.activeConnections, uint64_t(-1));
    m_connections.erase(found);
}

} // namespace loadscope::app
