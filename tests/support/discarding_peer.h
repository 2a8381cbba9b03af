#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace loadscope::testing {

// A peer that reads requests of any size without holding them: an HTTP server
// that discards each request's body (Content-Length) and answers a small 200,
// or a TCP_RR peer that answers every `requestBytes` read with
// `responseBytes` sent from one small pattern buffer. Its memory stays the
// same whatever the sizes, so a test can weigh the client's alone. Counts the
// requests answered and the bytes read: the truth that every request went out
// whole. One epoll thread on 127.0.0.1; plain C++ and Linux, no Qt.
class DiscardingPeer {
public:
    enum class Mode { Http, TcpRr };
    DiscardingPeer(Mode mode, uint64_t requestBytes = 0, uint64_t responseBytes = 0);
    ~DiscardingPeer();
    DiscardingPeer(const DiscardingPeer&) = delete;
    DiscardingPeer& operator=(const DiscardingPeer&) = delete;

    bool isListening() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    uint64_t answered() const { return m_answered.load(); }
    uint64_t bytesRead() const { return m_read.load(); }

private:
    struct Connection;
    void loop();
    void onReadable(Connection& c);
    bool parseHttp(Connection& c, const char* data, size_t size);
    void writePending(Connection& c);

    Mode m_mode;
    uint64_t m_requestBytes;
    uint64_t m_responseBytes;
    int m_listen = -1;
    int m_epoll = -1;
    int m_wake = -1;
    uint16_t m_port = 0;
    std::atomic<uint64_t> m_answered{0};
    std::atomic<uint64_t> m_read{0};
    std::thread m_thread;
};

} // namespace loadscope::testing
