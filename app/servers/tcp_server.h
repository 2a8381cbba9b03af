#pragma once

#include "app/common/result.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace loadscope::app {

class ServerConnection;
class ServerLoop;

struct ServerConfig {
    std::string host = "127.0.0.1"; // numeric address or a name resolved once at start()
    uint16_t port = 0;              // 0: the kernel picks a free port; see TcpServer::port()
    uint32_t threads = 1;           // epoll loops, each on its own thread
    // A connection that has not sent a whole request head this long after it was accepted, or
    // after the first byte of a head, is closed (slowloris). Servers without requests (sink,
    // proxy) have no heads. 0: no limit.
    std::chrono::milliseconds headerTimeout{std::chrono::seconds(10)};
    // A connection on which nothing moved this long is closed. 0: no limit.
    std::chrono::milliseconds idleTimeout{std::chrono::seconds(60)};
};

// Totals over all loop threads. What counts as a request, and as an error, is each server's:
// HTTP responses and malformed requests, echo responses, proxy upstream connect failures.
struct ServerStats {
    uint64_t connections = 0; // accepted since start()
    uint64_t activeConnections = 0;
    uint64_t bytesReceived = 0;
    uint64_t bytesSent = 0;
    uint64_t requests = 0;
    uint64_t errors = 0;
};

// Listens on host:port and runs `threads` epoll loops that share the listening socket
// (EPOLLEXCLUSIVE, so one connection wakes one loop). A shared socket rather than SO_REUSEPORT
// keeps "port already in use" an error even against another of our own servers.
//
// Timeouts (ServerConfig) close slow and idle connections, checked by each loop a few times per
// shortest timeout. Each loop keeps one descriptor in reserve: when accept() finds the process out
// of descriptors, the reserve makes room for the newcomer, and the loop closes its oldest
// connection still waiting for a request head (or else its longest idle one) to keep it; with no
// such connection the newcomer is closed at once instead of waiting in the backlog.
//
// start(), stop() and stats() may be called from any thread except a loop thread. A subclass must
// call stop() in its own destructor, because its loops use its members until they are joined.
class TcpServer {
public:
    TcpServer(const TcpServer&) = delete;
    TcpServer& operator=(const TcpServer&) = delete;
    virtual ~TcpServer();

    // Binds, listens and starts the loops. On failure an error of one line such as "cannot
    // listen on 127.0.0.1:8080: Address already in use".
    Result<void> start();
    // Stops accepting, closes every connection and joins the loops. Idempotent.
    void stop();

    bool isRunning() const;
    // The bound port: the configured one, or the kernel's pick when it was 0. Valid after start().
    uint16_t port() const;
    // "127.0.0.1:8080" or "[::1]:8080". Valid after start().
    std::string address() const;
    const ServerConfig& config() const { return m_config; }
    // Still readable after stop(), for a final summary.
    ServerStats stats() const;
    // The loop threads' ids (gettid), whose CPU time is the server's when it
    // runs inside this process (engine::ServerCpuSource::threads). Empty when stopped.
    std::vector<int> threadIds() const;

protected:
    explicit TcpServer(ServerConfig config);

    // Called on a loop thread for each accepted, non-blocking client socket. The returned
    // connection owns `fd` and has already watched it; nullptr means the fd has been closed.
    virtual std::unique_ptr<ServerConnection> createConnection(ServerLoop& loop, int fd) = 0;
    // Called by start() before binding; a server refuses to start by returning a one-line error.
    virtual Result<void> prepare();

private:
    friend class ServerLoop;

    // Raises the stop flag, wakes and joins the loop threads, closes the listening socket.
    void stopLoops();
    void closeDescriptors();

    const ServerConfig m_config;
    mutable std::mutex m_mutex; // guards the lifecycle, not the hot path
    std::atomic<bool> m_stopping{false};
    bool m_running = false;
    int m_listenFd = -1;
    int m_wakeFd = -1;
    uint16_t m_port = 0;
    std::string m_address;
    std::vector<std::unique_ptr<ServerLoop>> m_loops;
    std::vector<std::thread> m_threads;
    std::vector<int> m_threadIds;
};

} // namespace loadscope::app
