#include "rate_limited_sink.h"

#include "loopback_listener.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <ctime>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

RateLimitedSink::RateLimitedSink(uint64_t bytesPerSecond, AtEndOfStream atEnd)
    : m_rate(bytesPerSecond)
    , m_atEnd(atEnd) {
    uint16_t port = 0;
    m_listen = listenOnLoopback(0, 64, port);
    if (m_listen < 0)
        return;
    m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    m_port = port;
    m_thread = std::thread([this] { loop(); });
}

RateLimitedSink::~RateLimitedSink() {
    if (m_thread.joinable()) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wake, &one, sizeof one);
        m_thread.join();
    }
    if (m_listen >= 0)
        ::close(m_listen);
    if (m_wake >= 0)
        ::close(m_wake);
}

void RateLimitedSink::loop() {
    ::prctl(PR_SET_TIMERSLACK, 1UL);
    std::vector<int> clients;
    std::vector<int> held; // ended streams kept open (AtEndOfStream::KeepOpen)
    std::vector<char> buffer(256 * 1024);
    int64_t startNs = 0;
    uint64_t read = 0;
    for (;;) {
        pollfd wake[2] = {{m_wake, POLLIN, 0}, {m_listen, POLLIN, 0}};
        ::poll(wake, 2, 1); // the pacing tick
        if (wake[0].revents & POLLIN)
            break;
        for (;;) {
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0)
                break;
            if (startNs == 0)
                startNs = monotonicNowNs();
            clients.push_back(fd);
        }
        if (clients.empty())
            continue;
        // The budget: what the rate allows since the first accept, less what was read.
        const auto allowed = uint64_t(double(m_rate) * double(monotonicNowNs() - startNs) / 1e9);
        for (size_t i = 0; i < clients.size();) {
            bool closed = false;
            while (read < allowed) {
                const size_t want = std::min<uint64_t>(buffer.size(), allowed - read);
                const ssize_t n = ::recv(clients[i], buffer.data(), want, MSG_DONTWAIT);
                if (n > 0) {
                    read += uint64_t(n);
                    m_read.store(read);
                    continue;
                }
                closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
                break;
            }
            if (!closed && read >= allowed) {
                // Out of budget: a zero-length peek still sees an end of stream.
                char probe = 0;
                const ssize_t n = ::recv(clients[i], &probe, 1, MSG_DONTWAIT | MSG_PEEK);
                closed = n == 0;
            }
            if (closed) {
                ++m_ended;
                if (m_atEnd == AtEndOfStream::KeepOpen) {
                    held.push_back(clients[i]);
                } else {
                    ::close(clients[i]);
                    ++m_closed;
                }
                clients.erase(clients.begin() + long(i));
            } else {
                ++i;
            }
        }
    }
    for (int fd : clients)
        ::close(fd);
    for (int fd : held)
        ::close(fd);
}

} // namespace loadscope::testing
