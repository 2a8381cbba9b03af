#pragma once

// A network namespace of the test's own, so that a test that points the window
// or a CLI path at lab addresses, or a hostile peer at the client, cannot send
// anything out of the machine whatever the code under test does: inside, there
// is only `lo`, up, and the namespace's own settings (TCP buffers) are the
// test's to choose without touching the machine's. Plain C++ and Linux, so that
// engine suites can use it; LOADSCOPE_PRIVATE_NETWORK_MAIN wraps it for Qt Test.

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>
#include <optional>
#include <sched.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::testing {

namespace detail {

inline bool writeProcFile(const char* path, const std::string& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    ::close(fd);
    return written;
}

inline uint64_t networkNamespaceInode() {
    struct stat self {};
    return ::stat("/proc/self/ns/net", &self) == 0 ? uint64_t(self.st_ino) : 0;
}

} // namespace detail

// Moves the calling thread, and every thread and process it starts from then
// on, into a network namespace of its own (as root; otherwise with a user
// namespace in which the caller is root) and brings its `lo` up. Call it
// first, before any other thread exists (a thread keeps the namespace of the
// thread that made it). Nothing on success, else one line saying why not.
inline std::optional<std::string> enterPrivateNetwork() {
    const uint64_t before = detail::networkNamespaceInode();
    if (::unshare(CLONE_NEWNET) != 0) {
        const int plainError = errno;
        const std::string uid = std::to_string(::getuid());
        const std::string gid = std::to_string(::getgid());
        if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
            return std::string("cannot make a network namespace: ") + std::strerror(plainError) +
                   ", and with a user namespace: " + std::strerror(errno);
        if (!detail::writeProcFile("/proc/self/setgroups", "deny") ||
            !detail::writeProcFile("/proc/self/uid_map", "0 " + uid + " 1") ||
            !detail::writeProcFile("/proc/self/gid_map", "0 " + gid + " 1"))
            return std::string("cannot map the user into its new namespace");
    }
    const uint64_t after = detail::networkNamespaceInode();
    if (before == 0 || after == 0 || before == after)
        return std::string("the network namespace did not change");
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
        if (!detail::writeProcFile(path, minDefaultMax))
            return false;
    }
    return true;
}

} // namespace loadscope::testing

// A Qt Test main() whose suite runs in a network namespace of its own.
#define LOADSCOPE_PRIVATE_NETWORK_MAIN(Application, TestObject)                                    \
    int main(int argc, char* argv[]) {                                                             \
        if (const auto why = loadscope::testing::enterPrivateNetwork()) {                          \
            std::fprintf(stderr, "no private network namespace: %s\n", why->c_str());              \
            return 1;                                                                              \
        }                                                                                          \
        Application application(argc, argv);                                                       \
        application.setAttribute(Qt::AA_Use96Dpi, true);                                           \
        TestObject test;                                                                           \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&test, argc, argv);                                                    \
    }
