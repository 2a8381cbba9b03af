#pragma once

#include "app/servers/server_loop.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <sys/epoll.h>
#include <sys/types.h>
#include <utility>

namespace loadscope::app {

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

// Bytes read from one socket that the socket they go to did not take yet. Kept for one read at
// most: whoever holds pending output stops reading until it is delivered.
class PendingOutput {
public:
    bool empty() const { return m_offset >= m_bytes.size(); }
    // Sends `data` to `fd` now and keeps what the socket does not take; false on a write error.
    bool sendOrKeep(ServerLoop& loop, int fd, std::span<const char> data);
    // Sends what is kept; true when all of it went or the socket is full, false on a write error.
    bool flush(ServerLoop& loop, int fd);

private:
    std::string m_bytes;
    size_t m_offset = 0;
};

// The skeleton of a connection on one client socket: it owns the descriptor (closed by the
// destructor), starts out watching it for reading, and changes what it watches only when the
// wish changes, so a busy connection costs no epoll_ctl per event.
class SocketConnection : public ServerConnection {
public:
    SocketConnection(ServerLoop& loop, int fd)
        : m_loop(loop)
        , m_fd(fd) {}
    ~SocketConnection() override { m_loop.closeDescriptor(m_fd); }

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

    ServerLoop& m_loop;
    int m_fd;

private:
    uint32_t m_events = 0;
};

// A new connection of type C, opened; nullptr (its descriptors closed) when it could not be.
template <typename C, typename... Args>
std::unique_ptr<ServerConnection> openConnection(Args&&... args) {
    auto connection = std::make_unique<C>(std::forward<Args>(args)...);
    if (!connection->open())
        return nullptr;
    return connection;
}

} // namespace loadscope::app
