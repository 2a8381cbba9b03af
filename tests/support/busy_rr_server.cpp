#include "busy_rr_server.h"

#include "loopback_listener.h"

#include <pthread.h>
#include <string>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

namespace loadscope::testing {

__attribute__((noinline)) void spinForThreadCpu(std::chrono::nanoseconds cpu) {
    const int64_t until = clockNowNs(CLOCK_THREAD_CPUTIME_ID) + cpu.count();
    volatile uint64_t sink = 0;
    do {
        // About a microsecond of arithmetic between clock reads, so that
        // the loop is user-space time and not the clock's system calls.
        for (uint64_t i = 0; i < 512; ++i)
            sink = sink * 6364136223846793005ULL + i;
    } while (clockNowNs(CLOCK_THREAD_CPUTIME_ID) < until);
}

BusyRrServer::BusyRrServer(Options options)
    : m_options(options) {
    uint16_t port = 0;
    m_listen = listenOnLoopback(m_options.port, 128, port);
    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    m_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_listen < 0 || m_epoll < 0 || m_wake < 0)
        return;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = m_listen;
    epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &event);
    event.data.fd = m_wake;
    epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &event);
    m_port = port;
    m_thread = std::thread([this] { loop(); });
    while (m_tid.load() == 0)
        std::this_thread::yield();
}

BusyRrServer::~BusyRrServer() {
    if (m_thread.joinable()) {
        const uint64_t one = 1;
        (void)!write(m_wake, &one, sizeof one);
        m_thread.join();
    }
    for (const int fd : {m_listen, m_epoll, m_wake})
        if (fd >= 0)
            close(fd);
}

int64_t BusyRrServer::threadCpuNs() const {
    clockid_t clock{};
    if (!m_thread.joinable() ||
        pthread_getcpuclockid(const_cast<std::thread&>(m_thread).native_handle(), &clock) != 0)
        return 0;
    return clockNowNs(clock);
}

void BusyRrServer::loop() {
    m_tid.store(int(gettid()));
    std::unordered_map<int, size_t> pending; // bytes of the request being read, per connection
    const std::string response(m_options.responseBytes, 'r');
    char buffer[4096];
    epoll_event events[64];
    for (;;) {
        const int n = epoll_wait(m_epoll, events, 64, 1000);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_wake) {
                for (const auto& [connection, bytes] : pending)
                    close(connection);
                return;
            }
            if (fd == m_listen) {
                const int connection = accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
                if (connection < 0)
                    continue;
                epoll_event event{};
                event.events = EPOLLIN;
                event.data.fd = connection;
                epoll_ctl(m_epoll, EPOLL_CTL_ADD, connection, &event);
                pending[connection] = 0;
                continue;
            }
            const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0) {
                epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
                close(fd);
                pending.erase(fd);
                continue;
            }
            size_t& have = pending[fd];
            have += size_t(got);
            while (have >= m_options.requestBytes) {
                have -= m_options.requestBytes;
                spinForThreadCpu(m_options.cpuPerRequest);
                (void)!send(fd, response.data(), response.size(), MSG_NOSIGNAL);
                m_answered.fetch_add(1);
            }
        }
    }
}

} // namespace loadscope::testing
