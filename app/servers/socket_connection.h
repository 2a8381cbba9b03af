#pragma once

#include "app/servers/server_loop.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <sys/epoll.h>
#include <sys/types.h>
#include <utility>

using SSL = struct ssl_st;

namespace loadscope::engine {
class TlsSession;
}

namespace loadscope::app {

class TlsServerContext;

// True when the non-blocking call that just failed only has to be tried again later.
bool wouldBlock();

// What one read from a socket into its loop's scratch buffer gave.
struct SocketRead {
    enum class Status {
        Data,   // `bytes` were read (and counted as received)
        Closed, // the peer sent its FIN
        Again,  // nothing to read now
        Failed, // the socket is broken
    };
    Status status = Status::Again;
    std::span<char> bytes;

    // Again or Failed: what an event handler returns for it.
    bool keepOpen() const { return status == Status::Again; }
};
SocketRead readSome(ServerLoop& loop, int fd);
// What a recv-like read into the loop's scratch buffer returned (`received`,
// errno), as a SocketRead: for readers other than recv (TLS).
SocketRead readResult(ServerLoop& loop, ssize_t received);
// send() to `fd`, or a TLS record through `tls` when it is set: bytes taken, or -1 with errno.
ssize_t sendSome(int fd, engine::TlsSession* tls, const char* data, size_t size);

// Bytes read from one socket that the socket they go to did not take yet. Kept for one read at
// most: whoever holds pending output stops reading until it is delivered.
class PendingOutput {
public:
    bool empty() const { return m_offset >= m_bytes.size(); }
    // Sends `data` to `fd` now and keeps what the socket does not take; false on a write error.
    // With `tls`, the bytes go through it (TLS records).
    bool sendOrKeep(ServerLoop& loop, int fd, std::span<const char> data,
                    engine::TlsSession* tls = nullptr);
    // Sends what is kept; true when all of it went or the socket is full, false on a write error.
    bool flush(ServerLoop& loop, int fd, engine::TlsSession* tls = nullptr);

private:
    std::string m_bytes;
    size_t m_offset = 0;
};

// The skeleton of a connection on one client socket: it owns the descriptor (closed by the
// destructor), starts out watching it for reading, and changes what it watches only when the
// wish changes, so a busy connection costs no epoll_ctl per event. With TLS it owns the
// connection's engine::TlsSession too: the handshake comes first (continueHandshake), then every
// read and write goes through it (readSocket, writeSocket), so that each server speaks TLS the
// same way.
class SocketConnection : public ServerConnection {
public:
    // `tls`: the server side of a TLS connection on `fd` (TlsServerContext::accept), owned from
    // now on; nullptr: cleartext.
    SocketConnection(ServerLoop& loop, int fd, SSL* tls = nullptr);
    ~SocketConnection() override;

    // Watches the socket for reading; false when epoll refused it.
    bool open() {
        m_events = EPOLLIN;
        return m_loop.watch(m_fd, m_events, this);
    }

protected:
    bool watching(uint32_t events) const { return (m_events & events) != 0; }
    // Watches for `wanted` from now on (0: no event is wanted until something changes).
    bool updateInterest(uint32_t wanted) {
        if (wanted == m_events)
            return true;
        m_events = wanted;
        return m_loop.rewatch(m_fd, wanted);
    }

    // TLS, until its handshake completed.
    bool handshaking() const { return m_handshaking; }
    // While handshaking(): drives the handshake as far as the socket allows. A value is what the
    // event handler returns now (waiting for the socket, or false on a failure, counted as the
    // loop's error); nullopt: the handshake has just completed and the connection may go on.
    std::optional<bool> continueHandshake();
    // One read into the loop's scratch buffer, through TLS when there is one: one record per
    // call, which the scratch buffer always holds whole; without read-ahead what OpenSSL has not
    // read is still in the socket, and the level-triggered loop reports it.
    SocketRead readSocket();
    // send(), or TLS records: bytes taken, or -1 with errno (EAGAIN: try again when writable).
    ssize_t writeSocket(const char* data, size_t size);
    // The end of what the server sends: close_notify first with TLS, then the FIN.
    void closeWrite();
    engine::TlsSession* tls() const { return m_tls.get(); }

    ServerLoop& m_loop;
    int m_fd;

private:
    uint32_t m_events = 0;
    std::unique_ptr<engine::TlsSession> m_tls;
    bool m_handshaking = false;
};

// The TLS side of a newly accepted `fd` when the server has a context: nullptr for cleartext
// (no context), nullopt when it could not be made (out of memory; `fd` is closed then).
std::optional<SSL*> acceptTls(const TlsServerContext* context, ServerLoop& loop, int fd);

// A new connection of type C, opened; nullptr (its descriptors closed) when it could not be.
template <typename C, typename... Args>
std::unique_ptr<ServerConnection> openConnection(Args&&... args) {
    auto connection = std::make_unique<C>(std::forward<Args>(args)...);
    if (!connection->open())
        return nullptr;
    return connection;
}

} // namespace loadscope::app
