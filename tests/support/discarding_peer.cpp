#include "discarding_peer.h"

#include "loopback_listener.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <vector>

namespace loadscope::testing {

namespace {

constexpr size_t kBufferBytes = 64 * 1024;
constexpr size_t kMaxHeadBytes = 16 * 1024;
constexpr char kHttpAnswer[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

// Content-Length of a request head, 0 when it has none.
uint64_t contentLength(const std::string& head) {
    std::string lower(head);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    const size_t at = lower.find("\r\ncontent-length:");
    return at == std::string::npos ? 0 : std::strtoull(head.c_str() + at + 17, nullptr, 10);
}

} // namespace

struct DiscardingPeer::Connection {
    int fd = -1;
    std::string head;          // the HTTP request head read so far (bounded)
    uint64_t bodyLeft = 0;     // HTTP body bytes still to discard
    uint64_t requestRead = 0;  // TCP_RR: bytes of the current request
    uint64_t pendingSend = 0;  // answer bytes owed
    uint64_t answerOffset = 0; // into the current answer
};

DiscardingPeer::DiscardingPeer(Mode mode, uint64_t requestBytes, uint64_t responseBytes)
    : m_mode(mode)
    , m_requestBytes(std::max<uint64_t>(requestBytes, 1))
    , m_responseBytes(mode == Mode::Http ? sizeof kHttpAnswer - 1
                                         : std::max<uint64_t>(responseBytes, 1)) {
    uint16_t port = 0;
    m_listen = listenOnLoopback(0, 1024, port);
    if (m_listen < 0)
        return;
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr; // the listener
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
    ev.data.ptr = this; // the wake-up
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &ev);
    m_port = port;
    m_thread = std::thread([this] { loop(); });
}

DiscardingPeer::~DiscardingPeer() {
    if (m_thread.joinable()) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wake, &one, sizeof one);
        m_thread.join();
    }
    for (int fd : {m_listen, m_epoll, m_wake})
        if (fd >= 0)
            ::close(fd);
}

void DiscardingPeer::loop() {
    std::vector<std::unique_ptr<Connection>> connections;
    epoll_event events[64];
    for (;;) {
        const int n = ::epoll_wait(m_epoll, events, 64, 100);
        for (int i = 0; i < n; ++i) {
            if (events[i].data.ptr == this) {
                for (auto& c : connections)
                    if (c->fd >= 0)
                        ::close(c->fd);
                return;
            }
            if (!events[i].data.ptr) {
                for (;;) {
                    const int fd =
                        ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (fd < 0)
                        break;
                    auto c = std::make_unique<Connection>();
                    c->fd = fd;
                    epoll_event ev{};
                    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
                    ev.data.ptr = c.get();
                    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
                    connections.push_back(std::move(c));
                }
                continue;
            }
            auto& c = *static_cast<Connection*>(events[i].data.ptr);
            if (c.fd >= 0)
                onReadable(c);
        }
        // Closed ones go after the batch: a later event of it may name them.
        std::erase_if(connections, [](const auto& c) { return c->fd < 0; });
    }
}

void DiscardingPeer::onReadable(Connection& c) {
    static thread_local std::vector<char> buffer(kBufferBytes);
    for (;;) {
        const ssize_t n = ::recv(c.fd, buffer.data(), buffer.size(), 0);
        if (n > 0) {
            m_read.fetch_add(uint64_t(n), std::memory_order_relaxed);
            if (m_mode == Mode::Http) {
                if (!parseHttp(c, buffer.data(), size_t(n)))
                    break;
            } else {
                c.requestRead += uint64_t(n);
                c.pendingSend += (c.requestRead / m_requestBytes) * m_responseBytes;
                c.requestRead %= m_requestBytes;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        ::close(c.fd); // end of stream or an error
        c.fd = -1;
        return;
    }
    writePending(c);
}

bool DiscardingPeer::parseHttp(Connection& c, const char* data, size_t size) {
    while (size > 0) {
        if (c.bodyLeft > 0) {
            const size_t take = size_t(std::min<uint64_t>(c.bodyLeft, size));
            c.bodyLeft -= take;
            data += take;
            size -= take;
            if (c.bodyLeft == 0)
                c.pendingSend += m_responseBytes;
            continue;
        }
        // One byte at a time into the head: heads are small and this is a test peer.
        c.head.push_back(*data++);
        --size;
        if (c.head.size() > kMaxHeadBytes) {
            ::close(c.fd);
            c.fd = -1;
            return false;
        }
        if (c.head.size() >= 4 && c.head.compare(c.head.size() - 4, 4, "\r\n\r\n") == 0) {
            c.bodyLeft = contentLength(c.head);
            c.head.clear();
            if (c.bodyLeft == 0)
                c.pendingSend += m_responseBytes;
        }
    }
    return true;
}

void DiscardingPeer::writePending(Connection& c) {
    static thread_local std::string pattern = [] {
        std::string p(kBufferBytes, '\0');
        for (size_t i = 0; i < p.size(); ++i)
            p[i] = char('a' + i % 26);
        return p;
    }();
    while (c.fd >= 0 && c.pendingSend > 0) {
        const char* bytes = m_mode == Mode::Http ? kHttpAnswer + c.answerOffset : pattern.data();
        const size_t left = size_t(m_responseBytes - c.answerOffset);
        const size_t want = m_mode == Mode::Http ? left : std::min(left, pattern.size());
        const ssize_t n = ::send(c.fd, bytes, want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                ::close(c.fd);
                c.fd = -1;
            }
            return; // EPOLLOUT (edge-triggered) calls again
        }
        c.answerOffset += uint64_t(n);
        c.pendingSend -= uint64_t(n);
        if (c.answerOffset == m_responseBytes) {
            c.answerOffset = 0;
            m_answered.fetch_add(1, std::memory_order_relaxed);
        }
    }
}

} // namespace loadscope::testing
