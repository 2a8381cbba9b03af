#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

// A small epoll HTTP server for engine tests, running on its own thread on
// 127.0.0.1 and a free port. Its behaviour is scripted so that each fault the
// engine must count (or survive) can be produced on demand.
class ScriptedHttpServer {
public:
    enum class Behaviour {
        KeepAlive,             // answer every request, keep the connection open
        CloseEveryNth,         // "Connection: close" on every `closeEvery`-th response
        CloseSilently,         // close after each response without saying so
        CloseSilentlyEveryNth, // close after every `closeEvery`-th response without saying so
        NeverAnswer,           // read requests, answer nothing
        MalformedStatus,       // "HTTP/1.1 abc\r\n..."
        ResetMidResponse,      // half a response, then RST
        ShortBody,             // Content-Length larger than the body, then close
        HugeHeaders,           // more than 64 KiB of headers
        BadChunkSize,          // "Transfer-Encoding: chunked" with "zz" as size
        VaryingLength,         // every other body one byte longer
    };

    explicit ScriptedHttpServer(Behaviour behaviour, size_t bodySize = 4897, int closeEvery = 100);
    ~ScriptedHttpServer();
    ScriptedHttpServer(const ScriptedHttpServer&) = delete;
    ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

    uint16_t port() const { return m_port; }
    uint64_t requestsSeen() const { return m_requests.load(); }
    uint64_t connectionsAccepted() const { return m_accepted.load(); }
    int peakOpenConnections() const { return m_peakOpen.load(); }
    // Bytes of one complete response as sent for a keep-alive request.
    size_t responseSize(bool closing) const;

private:
    void loop();
    void onReadable(int fd);
    std::string response(bool closing, bool longer) const;

    Behaviour m_behaviour;
    size_t m_bodySize;
    int m_closeEvery;
    int m_listen = -1;
    int m_epoll = -1;
    int m_wake = -1;
    uint16_t m_port = 0;
    std::thread m_thread;
    std::atomic<uint64_t> m_requests{0};
    std::atomic<uint64_t> m_accepted{0};
    std::atomic<int> m_open{0};
    std::atomic<int> m_peakOpen{0};
};
