#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace loadscope::testing {

// A TCP sink that reads at a known rate: the truth a TCP_STREAM throughput is
// checked against. One thread on 127.0.0.1 polls its connections every
// millisecond and reads no more than `bytesPerSecond` times the time since
// the first connection was accepted; it closes a connection once it has read
// everything its peer sent (end of stream), as netperf's netserver does, or,
// with AtEndOfStream::KeepOpen, holds it open until the sink is destroyed (a
// sink that reads everything and never closes). Plain C++ and Linux: usable
// without Qt.
class RateLimitedSink {
public:
    enum class AtEndOfStream { Close, KeepOpen };
    explicit RateLimitedSink(uint64_t bytesPerSecond, AtEndOfStream atEnd = AtEndOfStream::Close);
    ~RateLimitedSink();
    RateLimitedSink(const RateLimitedSink&) = delete;
    RateLimitedSink& operator=(const RateLimitedSink&) = delete;

    bool isListening() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    uint64_t bytesPerSecond() const { return m_rate; }
    uint64_t bytesRead() const { return m_read.load(); }
    uint64_t connectionsClosed() const { return m_closed.load(); }
    // Connections whose peer ended its stream (shut down for writing or closed).
    uint64_t streamsEnded() const { return m_ended.load(); }

private:
    void loop();

    uint64_t m_rate;
    AtEndOfStream m_atEnd;
    int m_listen = -1;
    int m_wake = -1;
    uint16_t m_port = 0;
    std::atomic<uint64_t> m_read{0};
    std::atomic<uint64_t> m_closed{0};
    std::atomic<uint64_t> m_ended{0};
    std::thread m_thread;
};

} // namespace loadscope::testing
