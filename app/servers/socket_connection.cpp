#include "app/servers/socket_connection.h"

#include <cerrno>
#include <sys/socket.h>

namespace loadscope::app {

bool wouldBlock() {
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

SocketRead readSome(ServerLoop& loop, int fd) {
    const std::span<char> scratch = loop.scratch();
    return readResult(loop, recv(fd, scratch.data(), scratch.size(), 0));
}

SocketRead readResult(ServerLoop& loop, ssize_t received) {
    const std::span<char> scratch = loop.scratch();
    if (received == 0)
        return {SocketRead::Status::Closed, {}};
    if (received < 0)
        return {wouldBlock() ? SocketRead::Status::Again : SocketRead::Status::Failed, {}};
    loop.countReceived(size_t(received));
    return {SocketRead::Status::Data, scratch.first(size_t(received))};
}

bool PendingOutput::sendOrKeep(ServerLoop& loop, int fd, std::span<const char> data) {
    const ssize_t sent = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && !wouldBlock())
        return false;
    const size_t done = sent > 0 ? size_t(sent) : 0;
    loop.countSent(done);
    if (done < data.size()) {
        m_bytes.assign(data.data() + done, data.size() - done);
        m_offset = 0;
    }
    return true;
}

bool PendingOutput::flush(ServerLoop& loop, int fd) {
    while (!empty()) {
        const ssize_t sent =
            send(fd, m_bytes.data() + m_offset, m_bytes.size() - m_offset, MSG_NOSIGNAL);
        if (sent < 0)
            return wouldBlock();
        loop.countSent(size_t(sent));
        m_offset += size_t(sent);
    }
    m_bytes.clear();
    m_offset = 0;
    return true;
}

} // namespace loadscope::app
