#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace loadscope::testing {

// A server that misbehaves in one chosen way, on 127.0.0.1 (a free port):
// what no real server does on demand. HTTP/2 modes speak h2c with prior
// knowledge from raw frames (no library to smooth anything over); each
// connection is served by a thread of its own, pinned to `cpu` when it is
// 0 or more, so that a flood competes with a client pinned to the same CPU
// for it. Stopped, every thread joined, when the object goes away. Plain C++
// and Linux, no Qt.
class HostilePeer {
public:
    enum class Mode {
        // HTTP/2 floods of valid frames, sent as fast as the socket takes
        // them and never answering a request: WINDOW_UPDATEs of 1 on the
        // connection, or frames of an unknown type (16 KiB each), which a
        // client must ignore.
        H2FloodWindowUpdate,
        H2FloodUnknownFrames,
        // SETTINGS_MAX_CONCURRENT_STREAMS 0, then the connection's first
        // stream answered (200, "ok"): afterwards the client may open none.
        H2NoStreams,
        // Each stream answered with a response the client must reset:
        // ":status abc", no :status at all, content-length 100 with 5 bytes.
        H2BadStatus,
        H2NoStatus,
        H2ShortBody,
        // Connection errors after the first request: DATA on stream 0, a
        // PUSH_PROMISE (push is off), a frame above the 16 KiB frame size, a
        // header block HPACK cannot decode.
        H2DataOnStreamZero,
        H2PushPromise,
        H2OversizedFrame,
        H2BadHpack,
        // HTTP/1.1: a 200 whose Content-Length is 10^15 bytes, and bytes of it
        // as fast as the socket takes them.
        Http1EndlessBody,
    };

    explicit HostilePeer(Mode mode, int cpu = -1);
    ~HostilePeer();
    HostilePeer(const HostilePeer&) = delete;
    HostilePeer& operator=(const HostilePeer&) = delete;

    bool isListening() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    uint64_t connections() const { return m_connections.load(); }
    uint64_t streamsSeen() const { return m_streams.load(); } // HEADERS (HTTP/2) or heads (HTTP/1)
    uint64_t bytesSent() const { return m_sent.load(); }

private:
    void acceptLoop();
    void serve(int fd);

    Mode m_mode;
    int m_cpu;
    int m_listen = -1;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<uint64_t> m_connections{0};
    std::atomic<uint64_t> m_streams{0};
    std::atomic<uint64_t> m_sent{0};
    std::thread m_acceptor;
    std::mutex m_mutex; // guards m_served
    std::vector<std::thread> m_served;
};

} // namespace loadscope::testing
