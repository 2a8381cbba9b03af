#include "app/servers/socket_connection.h"

#include "app/servers/tls_server_context.h"
#include "engine/tls_session.h"

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

ssize_t sendSome(int fd, engine::TlsSession* tls, const char* data, size_t size) {
    return tls ? tls->write(data, size) : send(fd, data, size, MSG_NOSIGNAL);
}

bool PendingOutput::sendOrKeep(ServerLoop& loop, int fd, std::span<const char> data,
                               engine::TlsSession* tls) {
    const ssize_t sent = sendSome(fd, tls, data.data(), data.size());
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

bool PendingOutput::flush(ServerLoop& loop, int fd, engine::TlsSession* tls) {
    while (!empty()) {
        const ssize_t sent =
            sendSome(fd, tls, m_bytes.data() + m_offset, m_bytes.size() - m_offset);
        if (sent < 0)
            return wouldBlock();
        loop.countSent(size_t(sent));
        m_offset += size_t(sent);
    }
    m_bytes.clear();
    m_offset = 0;
    return true;
}

SocketConnection::SocketConnection(ServerLoop& loop, int fd, SSL* tls)
    : m_loop(loop)
    , m_fd(fd)
    , m_tls(tls ? std::make_unique<engine::TlsSession>(tls) : nullptr)
    , m_handshaking(tls != nullptr) {}

SocketConnection::~SocketConnection() {
    m_tls.reset(); // SSL_free before the descriptor it uses is closed
    m_loop.closeDescriptor(m_fd);
}

std::optional<bool> SocketConnection::continueHandshake() {
    switch (m_tls->handshake()) {
    case engine::TlsSession::Step::WantRead:
        return updateInterest(EPOLLIN);
    case engine::TlsSession::Step::WantWrite:
        return updateInterest(EPOLLOUT);
    case engine::TlsSession::Step::Failed:
        m_loop.countError();
        return false;
    case engine::TlsSession::Step::Done:
        break;
    }
    m_handshaking = false;
    return std::nullopt;
}

SocketRead SocketConnection::readSocket() {
    if (!m_tls)
        return readSome(m_loop, m_fd);
    const std::span<char> scratch = m_loop.scratch();
    return readResult(m_loop, m_tls->read(scratch.data(), scratch.size()));
}

ssize_t SocketConnection::writeSocket(const char* data, size_t size) {
    return sendSome(m_fd, m_tls.get(), data, size);
}

void SocketConnection::closeWrite() {
    if (m_tls)
        m_tls->notifyClose();
    shutdown(m_fd, SHUT_WR);
}

std::optional<SSL*> acceptTls(const TlsServerContext* context, ServerLoop& loop, int fd) {
    if (!context)
        return nullptr;
    if (SSL* ssl = context->accept(fd))
        return ssl;
    loop.closeDescriptor(fd);
    return std::nullopt;
}

} // namespace loadscope::app
