#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace loadscope::testing {

// A TCP request/response server (netperf TCP_RR's: `requestBytes` in,
// `responseBytes` back) that spends a known CPU time on each request before
// it answers: spinForThreadCpu() turns until the server thread's own CPU
// clock has advanced by `cpuPerRequest`. The truth a CPU profile's server
// figure is checked against. One epoll thread on 127.0.0.1. Plain C++ and
// Linux: usable without Qt.
class BusyRrServer {
public:
    struct Options {
        std::chrono::nanoseconds cpuPerRequest{std::chrono::microseconds(200)};
        size_t requestBytes = 1;
        size_t responseBytes = 1;
        uint16_t port = 0; // 0: a free port
    };

    explicit BusyRrServer(Options options);
    ~BusyRrServer();
    BusyRrServer(const BusyRrServer&) = delete;
    BusyRrServer& operator=(const BusyRrServer&) = delete;

    bool isListening() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    uint64_t answered() const { return m_answered.load(); }
    // The server thread's id (gettid) and its CPU time so far, in ns.
    int threadId() const { return m_tid.load(); }
    int64_t threadCpuNs() const;

private:
    void loop();

    Options m_options;
    int m_listen = -1;
    int m_epoll = -1;
    int m_wake = -1;
    uint16_t m_port = 0;
    std::atomic<int> m_tid{0};
    std::atomic<uint64_t> m_answered{0};
    std::thread m_thread;
};

// Turns until this thread's CPU clock has advanced by `cpu`: user-space work,
// the clock read every few microseconds.
void spinForThreadCpu(std::chrono::nanoseconds cpu);

} // namespace loadscope::testing
