#pragma once

#include <arpa/inet.h>
#include <cstdint>
#include <ctime>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::testing {

// A non-blocking listening socket on 127.0.0.1:`port` (0: a free one); -1 when
// it cannot listen. `boundPort` receives the port it listens on. `hostOrder`:
// another IPv4 address, in host byte order (a test's own network namespace).
inline int listenOnLoopback(uint16_t port, int backlog, uint16_t& boundPort,
                            uint32_t hostOrder = INADDR_LOOPBACK) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(hostOrder);
    address.sin_port = htons(port);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd, backlog) != 0) {
        ::close(fd);
        return -1;
    }
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    boundPort = ntohs(address.sin_port);
    return fd;
}

// `clock` now, in nanoseconds.
inline int64_t clockNowNs(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline int64_t monotonicNowNs() {
    return clockNowNs(CLOCK_MONOTONIC);
}

// The clock of SO_TIMESTAMPNS's stamps.
inline int64_t realtimeNowNs() {
    return clockNowNs(CLOCK_REALTIME);
}

} // namespace loadscope::testing
