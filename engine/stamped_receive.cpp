#include "engine/stamped_receive.h"

#include <cstring>
#include <ctime>
#include <sys/socket.h>

namespace loadscope::engine {

ssize_t receiveStamped(int fd, char* buffer, size_t size, int flags, int64_t& arrivedRealNs) {
    iovec part{buffer, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &message, flags);
    arrivedRealNs = 0;
    if (n <= 0)
        return n;
    for (cmsghdr* m = CMSG_FIRSTHDR(&message); m; m = CMSG_NXTHDR(&message, m)) {
        if (m->cmsg_level == SOL_SOCKET && m->cmsg_type == SCM_TIMESTAMPNS) {
            timespec at{};
            std::memcpy(&at, CMSG_DATA(m), sizeof at);
            arrivedRealNs = int64_t(at.tv_sec) * 1'000'000'000 + at.tv_nsec;
        }
    }
    return n;
}

int64_t realtimeNs() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace loadscope::engine
