#pragma once

#include "app/common/result.h"
#include "app/servers/tcp_server.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <sys/uio.h>
#include <thread>
#include <vector>

namespace loadscope::app {

class UdpLoop;

// Totals over all loop threads of a UDP server: its own count of what it read and sent, which
// tests hold the client's figures to.
struct UdpServerStats {
    uint64_t datagramsReceived = 0;
    uint64_t bytesReceived = 0;
    uint64_t datagramsSent = 0;
    uint64_t bytesSent = 0;
    uint64_t sendErrors = 0;   // answers the kernel refused to send
    uint64_t countQueries = 0; // sink: count queries answered
};

// The answers one loop sends back after a batch of reads, each to the peer of its datagram.
// An answer is up to two pieces that stay valid until the batch is sent (the datagram read,
// the server's filler, or bytes kept in the answer itself).
class DatagramReplies {
public:
    static constexpr size_t kBatch = 16;
    static constexpr size_t kOwnBytes = 64;

    // An answer to the datagram read into slot `slot`, made of `first` then `second`.
    void add(size_t slot, std::string_view first, std::string_view second = {});
    // Room for an answer of at most kOwnBytes kept with it (a sink's count), filled by the caller.
    char* addOwn(size_t slot, size_t bytes);

    struct Reply {
        size_t slot = 0;
        iovec pieces[2]{};
        int pieceCount = 0;
        char own[kOwnBytes]{};
    };
    Reply* replies() { return m_replies; }
    size_t count() const { return m_count; }
    void clear() { m_count = 0; }

private:
    Reply m_replies[kBatch];
    size_t m_count = 0;
};

// One loop's counts: written by its thread alone, read by stats() from any thread.
struct alignas(64) UdpLoopCounters {
    std::atomic<uint64_t> datagramsReceived{0};
    std::atomic<uint64_t> bytesReceived{0};
    std::atomic<uint64_t> datagramsSent{0};
    std::atomic<uint64_t> bytesSent{0};
    std::atomic<uint64_t> sendErrors{0};
    std::atomic<uint64_t> countQueries{0};

    static void bump(std::atomic<uint64_t>& counter, uint64_t n) {
        counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
};

// What one loop does with the datagrams it reads. One per loop, used by its thread alone.
class DatagramHandler {
public:
    virtual ~DatagramHandler() = default;
    // `datagram` (read into batch slot `slot`) came from the peer the loop knows; an answer, if
    // any, goes into `replies`. `countQuery`: set when it was a sink's count query.
    virtual void onDatagram(size_t slot, std::string_view datagram, DatagramReplies& replies,
                            bool& countQuery) = 0;
};

// Binds `threads` UDP sockets to host:port with SO_REUSEPORT, each read by a loop on its own
// thread in batches (recvmmsg, one blocking call for up to kBatch datagrams) and answered in
// batches (sendmmsg). The kernel hashes a peer's datagrams to one socket, so one loop sees a
// flow's datagrams in the order they came. A port taken by any other socket, one of our own
// included, is an error at start(), as for TcpServer.
//
// start(), stop() and stats() may be called from any thread except a loop thread. A subclass
// must call stop() in its own destructor, because its loops use its handlers until joined.
class UdpServer {
public:
    UdpServer(const UdpServer&) = delete;
    UdpServer& operator=(const UdpServer&) = delete;
    virtual ~UdpServer();

    // Binds and starts the loops; a one-line error such as "cannot bind UDP 127.0.0.1:9: ...".
    Result<void> start();
    void stop(); // idempotent
    bool isRunning() const;
    uint16_t port() const;
    std::string address() const; // "127.0.0.1:8080"; valid after start()
    const ServerConfig& config() const { return m_config; }
    UdpServerStats stats() const; // still readable after stop()
    std::vector<int> threadIds() const;

protected:
    // Only host, port and threads of `config` apply: a datagram has no connection to time out.
    explicit UdpServer(ServerConfig config);
    // One handler per loop, made by start() before the loop runs (for serveSocket's default).
    virtual std::unique_ptr<DatagramHandler> createHandler() { return nullptr; }
    // A loop's work on its socket `fd` (blocking, SO_RCVTIMEO of 200 ms) until `stopping`:
    // by default batches read and answered through `handler`. stop() shuts the socket down to
    // wake it. Called on the loop's own thread.
    virtual void serveSocket(int fd, DatagramHandler* handler, UdpLoopCounters& counters,
                             const std::atomic<bool>& stopping);
    // Called by start() before binding; a server refuses to start by returning a one-line error.
    virtual Result<void> prepare();

private:
    friend class UdpLoop;

    void stopLoops();

    const ServerConfig m_config;
    mutable std::mutex m_mutex; // guards the lifecycle, not the hot path
    std::atomic<bool> m_stopping{false};
    bool m_running = false;
    uint16_t m_port = 0;
    std::string m_address;
    std::vector<std::unique_ptr<UdpLoop>> m_loops;
    std::vector<std::thread> m_threads;
    std::vector<int> m_threadIds;
};

} // namespace loadscope::app
