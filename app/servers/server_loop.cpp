#include "app/servers/server_loop.h"

#include "app/servers/tcp_server.h"
#include "engine/vector_state.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
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

} // namespace

ServerLoop::ServerLoop(TcpServer& server, int listenFd, int wakeFd,
                       const std::atomic<bool>& stopping)
    : m_server(server)
    , m_listenFd(listenFd)
    , m_wakeFd(wakeFd)
    , m_stopping(stopping)
    , m_scratch(std::make_unique<char[]>(kScratchSize)) {}

ServerLoop::~ServerLoop() {
    m_connections.clear();
    if (m_epollFd >= 0)
        ::close(m_epollFd);
}

bool ServerLoop::open() {
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
    epoll_event events[kEventBatch];
    while (!m_stopping.load(std::memory_order_acquire)) {
        const int count = epoll_wait(m_epollFd, events, kEventBatch, waitTimeoutMs());
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
            if (owner && !owner->onEvents(fd, events[i].events))
                destroy(owner);
        }
        if (acceptPending && !m_stopping.load(std::memory_order_acquire))
            acceptSome();
        resumeAcceptingIfDue();
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
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                countError();
                pauseAccepting();
            }
            return; // EAGAIN: another loop took it
        }
        // Responses are written whole; Nagle would only delay the tail of a partial write.
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        bump(m_counters.connections, 1);
        std::unique_ptr<ServerConnection> connection = m_server.createConnection(*this, fd);
        if (!connection)
            continue;
        ServerConnection* key = connection.get();
        m_connections.emplace(key, std::move(connection));
        bump(m_counters.activeConnections, 1);
    }
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
    if (!m_acceptPaused)
        return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        m_acceptResumeAt - std::chrono::steady_clock::now());
    return left.count() > 0 ? int(left.count()) : 0;
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
