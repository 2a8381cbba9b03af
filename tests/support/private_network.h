#pragma once

// A network namespace of the test's own, so that a test that points the window
// or a CLI path at lab addresses cannot send anything out of the machine
// whatever the code under test does: inside, there is only `lo`. Entered at
// the top of main(), before any thread exists, so that every thread and child
// process the test starts is inside too (a thread keeps the namespace of the
// thread that made it).

#include <QByteArray>
#include <QString>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::testing {

namespace detail {

inline bool writeProcFile(const char* path, const QByteArray& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool written = ::write(fd, text.constData(), size_t(text.size())) == text.size();
    ::close(fd);
    return written;
}

inline uint64_t networkNamespaceInode() {
    struct stat self {};
    return ::stat("/proc/self/ns/net", &self) == 0 ? uint64_t(self.st_ino) : 0;
}

} // namespace detail

// Enters a new network namespace (as root; otherwise with a user namespace in
// which the caller is root) and brings its `lo` up. Empty on success, else why not.
inline QString enterPrivateNetwork() {
    const uint64_t before = detail::networkNamespaceInode();
    if (::unshare(CLONE_NEWNET) != 0) {
        const int plainError = errno;
        const QByteArray uid = QByteArray::number(::getuid());
        const QByteArray gid = QByteArray::number(::getgid());
        if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
            return QStringLiteral("cannot make a network namespace: %1, and with a user "
                                  "namespace: %2")
                .arg(QString::fromUtf8(std::strerror(plainError)),
                     QString::fromUtf8(std::strerror(errno)));
        if (!detail::writeProcFile("/proc/self/setgroups", "deny") ||
            !detail::writeProcFile("/proc/self/uid_map", "0 " + uid + " 1") ||
            !detail::writeProcFile("/proc/self/gid_map", "0 " + gid + " 1"))
            return QStringLiteral("cannot map the user into its new namespace");
    }
    const uint64_t after = detail::networkNamespaceInode();
    if (before == 0 || after == 0 || before == after)
        return QStringLiteral("the network namespace did not change");
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    const bool up = fd >= 0 && ::ioctl(fd, SIOCGIFFLAGS, &request) == 0 &&
                    (request.ifr_flags |= IFF_UP, ::ioctl(fd, SIOCSIFFLAGS, &request) == 0);
    if (fd >= 0)
        ::close(fd);
    return up ? QString() : QStringLiteral("cannot bring lo up in the new namespace");
}

} // namespace loadscope::testing

// A Qt Test main() whose suite runs in a network namespace of its own.
#define LOADSCOPE_PRIVATE_NETWORK_MAIN(Application, TestObject)                                    \
    int main(int argc, char* argv[]) {                                                             \
        if (const QString why = loadscope::testing::enterPrivateNetwork(); !why.isEmpty()) {       \
            std::fprintf(stderr, "no private network namespace: %s\n", qPrintable(why));           \
            return 1;                                                                              \
        }                                                                                          \
        Application application(argc, argv);                                                       \
        application.setAttribute(Qt::AA_Use96Dpi, true);                                           \
        TestObject test;                                                                           \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&test, argc, argv);                                                    \
    }
