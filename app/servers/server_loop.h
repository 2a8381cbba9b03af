#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace loadscope::app {

class ServerLoop;
class TcpServer;

// One accepted client and whatever descriptors it owns (a proxied connection owns two). It lives
// on the loop thread that accepted it and is never touched from another thread.
class ServerConnection {
public:
    ServerConnection() = default;
    ServerConnection(const ServerConnection&) = delete;
    ServerConnection& operator=(const ServerConnection&) = delete;
    virtual ~ServerConnection() = default;

    // Events for `fd`, one of the descriptors this connection watches. Returning false ends the
    // connection: the loop destroys it, and the destructor closes its descriptors. Events can be
    // spurious (a descriptor number reused within one epoll batch), so handlers treat EAGAIN as
    // normal and never act on EPOLLERR without asking the socket.
    virtual bool onEvents(int fd, uint32_t events) = 0;

    // For the loop's timeouts. A connection that reads requests calls headStarted when it begins
    // waiting for a request head (accepted, or part of a head read) and headCompleted when the
    // head is whole; the loop notes activity on every event.
    void headStarted(int64_t nowNs) {
        if (m_headSinceNs == 0)
            m_headSinceNs = nowNs;
    }
    void headCompleted() { m_headSinceNs = 0; }

private:
    friend class ServerLoop;
    int64_t m_headSinceNs = 0; // 0: not waiting for a head
    int64_t m_activeAtNs = 0;  // the loop's clock at the last event
};

// Counters written by one loop thread and read by any thread; single writer, so plain relaxed
// load-and-store is enough and costs no locked instruction on the hot path.
struct alignas(64) LoopCounters {
    std::atomic<uint64_t> connections{0};
    std::atomic<uint64_t> activeConnections{0};
    std::atomic<uint64_t> bytesReceived{0};
    std::atomic<uint64_t> bytesSent{0};
    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> errors{0};
};

// One epoll loop on one thread: accepts from the shared listening socket, dispatches events to
// connections, owns them, and destroys them when they finish or when the server stops.
class ServerLoop {
public:
    ServerLoop(TcpServer& server, int listenFd, int wakeFd, const std::atomic<bool>& stopping);
    ServerLoop(const ServerLoop&) = delete;
    ServerLoop& operator=(const ServerLoop&) = delete;
    ~ServerLoop();

    // false (errno set) when the epoll instance could not be created or registered.
    bool open();
    // Runs until the server's stop flag is raised; destroys all connections before returning.
    void run();

    // Level-triggered registration of a connection's descriptor.
    bool watch(int fd, uint32_t events, ServerConnection* owner);
    bool rewatch(int fd, uint32_t events);
    void unwatch(int fd);
    // Forgets `fd` and closes it (which also removes it from epoll); sets it to -1.
    void closeDescriptor(int& fd);

    // Read buffer shared by every connection of this loop: data is read here and only what cannot
    // be handled at once is copied into a connection, so idle connections cost no buffer.
    std::span<char> scratch() { return {m_scratch.get(), kScratchSize}; }

    void countReceived(uint64_t bytes) { bump(m_counters.bytesReceived, bytes); }
    void countSent(uint64_t bytes) { bump(m_counters.bytesSent, bytes); }
    void countRequests(uint64_t n) { bump(m_counters.requests, n); }
    void countError() { bump(m_counters.errors, 1); }
    const LoopCounters& counters() const { return m_counters; }
    // The loop's clock (steady, ns), read once per epoll_wait: what timeouts are measured on.
    int64_t now() const { return m_nowNs; }

    static constexpr size_t kScratchSize = 64 * 1024;

private:
    static void bump(std::atomic<uint64_t>& counter, uint64_t n) {
        counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    void acceptSome();
    void adopt(int fd); // an accepted client socket becomes a connection of this loop
    // Out of descriptors: accepts the next connection with the reserve's descriptor and keeps it
    // when a waiting connection can be closed in its place, else closes it; true when accepting
    // may go on.
    bool acceptAtLimit();
    ServerConnection* oldestWaiting() const;
    void expireConnections();
    void pauseAccepting();
    void resumeAcceptingIfDue();
    int waitTimeoutMs() const;
    void destroy(ServerConnection* connection);

    TcpServer& m_server;
    const int m_listenFd;
    const int m_wakeFd;
    const std::atomic<bool>& m_stopping;
    int m_epollFd = -1;
    int m_reserveFd = -1; // /dev/null, given up to accept one connection at the descriptor limit
    const int64_t m_headerTimeoutNs;
    const int64_t m_idleTimeoutNs;
    const int64_t m_expiryPeriodNs; // 0: no timeouts
    int64_t m_nowNs = 0;
    int64_t m_nextExpiryNs = 0;
    bool m_acceptPaused = false;
    std::chrono::steady_clock::time_point m_acceptResumeAt{};
    std::unique_ptr<char[]> m_scratch;
    // Descriptor number -> owner; descriptors are small integers, so a vector beats a map.
    std::vector<ServerConnection*> m_owners;
    std::unordered_map<ServerConnection*, std::unique_ptr<ServerConnection>> m_connections;
    std::vector<ServerConnection*> m_expired; // reused by every scan
    LoopCounters m_counters;
};

} // namespace loadscope::app
