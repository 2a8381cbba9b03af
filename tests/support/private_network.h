#pragma once

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>
#include <optional>
#include <sched.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::testing {

// Moves the calling thread, and every thread and process it starts from then
// on, into a network namespace of its own with only loopback, up: nothing a
// test sends can leave it, and the namespace's own settings are the test's
// to choose without touching the machine's. Call it first, on the thread
// that starts everything else (a suite's initTestCase). Needs
// CAP_SYS_ADMIN; one line saying why not otherwise.
inline std::optional<std::string> enterPrivateNetwork() {
    if (::unshare(CLONE_NEWNET) != 0)
        return std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return std::string("socket: ") + std::strerror(errno);
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool up = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    if (up) {
        request.ifr_flags = short(request.ifr_flags | IFF_UP);
        up = ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    }
    const int error = errno;
    ::close(fd);
    if (!up)
        return std::string("cannot bring lo up: ") + std::strerror(error);
    return std::nullopt;
}

// TCP's default buffer sizes in the private namespace (net.ipv4.tcp_rmem and
// tcp_wmem are the namespace's own): a larger receive buffer, as a tuned
// machine has, lets a peer keep more queued than one read takes. Only after
// enterPrivateNetwork() succeeded.
inline bool setPrivateTcpBuffers(const char* minDefaultMax) {
    for (const char* path : {"/proc/sys/net/ipv4/tcp_rmem", "/proc/sys/net/ipv4/tcp_wmem"}) {
        const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
        const size_t size = std::strlen(minDefaultMax);
        const bool written = fd >= 0 && ::write(fd, minDefaultMax, size) == ssize_t(size);
        if (fd >= 0)
            ::close(fd);
        if (!written)
            return false;
    }
    return true;
}

} // namespace loadscope::testing
