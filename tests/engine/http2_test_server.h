#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace loadscope::testing {

// A small HTTP/2 server on nghttp2 (h2c, 127.0.0.1, a free port) on a thread
// of its own, for what nginx will not do on demand: answer each stream after
// a delay of its own, and misbehave in one chosen way. Stopped when the
// object goes away.
class Http2TestServer {
public:
    enum class Mode {
        Answer,     // 200 with `bodyBytes` of body; streams 1, 5, 9, ... after `slowDelay`
        AnswerSlow, // as Answer, every stream after `slowDelay`
        Goaway,     // GOAWAY (NO_ERROR, last stream 0) to the first request, then close
        RstStream,  // RST_STREAM (INTERNAL_ERROR) to every request
        Garbage,    // a valid SETTINGS, then bytes that are no HTTP/2 frame
        ZeroWindow, // SETTINGS_INITIAL_WINDOW_SIZE 0: a request body can never be sent
        // Answers two requests per connection, then a graceful GOAWAY (NO_ERROR,
        // last stream the second one's) to the third, and a FIN.
        GoawayAfterTwo,
    };

    // `maxStreams`: its SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 refuses more).
    Http2TestServer(Mode mode, size_t bodyBytes,
                    std::chrono::milliseconds slowDelay = std::chrono::milliseconds(0),
                    uint32_t maxStreams = 100);
    ~Http2TestServer();
    Http2TestServer(const Http2TestServer&) = delete;
    Http2TestServer& operator=(const Http2TestServer&) = delete;

    bool isRunning() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    uint64_t requestsSeen() const { return m_requests.load(); }
    uint64_t connectionsAccepted() const { return m_connections.load(); }

private:
    void serve();

    Mode m_mode;
    size_t m_bodyBytes;
    std::chrono::milliseconds m_slowDelay;
    uint32_t m_maxStreams;
    int m_listener = -1;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<uint64_t> m_requests{0};
    std::atomic<uint64_t> m_connections{0};
    std::thread m_thread;
};

} // namespace loadscope::testing
