#pragma once

// A UDP peer on 127.0.0.1 whose faults are scripted, for the engine's UDP
// suites: it answers as an echo with a known size, and drops, delays,
// repeats, reorders or adds answers as told, counting each, so that what the
// client counts is held to what the peer did. As a sink it counts each
// stream's messages itself and answers count queries (or does not).
#include "engine/udp_datagram.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace loadscope::testing {

class ScriptedUdpPeer {
public:
    struct Script {
        size_t answerBytes = 8;  // the answer's size: the request's first bytes, then filler
        uint64_t dropEvery = 0;  // the n-th, 2n-th, ... request gets no answer
        uint64_t delayEvery = 0; // the n-th, 2n-th, ... answer goes out `delay` late
        std::chrono::milliseconds delay{0};
        bool duplicate = false;    // every answer is sent twice
        bool swapPairs = false;    // the answers to requests 2k and 2k+1 go out in that order
        uint64_t strayEvery = 0;   // after the n-th, 2n-th, ... answer a datagram of no request
        bool sink = false;         // count streams, answer nothing but count queries
        bool answerQueries = true; // a sink that is not Loadscope's answers none
        size_t messageBytes = 0;   // a sink: the size of every message, for the byte count
    };

    explicit ScriptedUdpPeer(Script script)
        : m_script(script) {
        m_fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        socklen_t length = sizeof address;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~ScriptedUdpPeer() {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }
    ScriptedUdpPeer(const ScriptedUdpPeer&) = delete;
    ScriptedUdpPeer& operator=(const ScriptedUdpPeer&) = delete;

    uint16_t port() const { return m_port; }
    // Read after the run; the peer's thread writes them.
    uint64_t received() const { return m_received; }
    uint64_t dropped() const { return m_dropped; }
    uint64_t delayed() const { return m_delayed; }
    uint64_t strays() const { return m_strays; }
    // A sink: the messages of each stream id, in the order the ids came.
    std::map<uint32_t, uint64_t> streams() const { return m_streams; }
    uint32_t lastStream() const { return m_lastStream; }

private:
    struct Pending {
        std::chrono::steady_clock::time_point at;
        std::string bytes;
        sockaddr_in to;
    };

    void send(const std::string& bytes, const sockaddr_in& to) {
        ::sendto(m_fd, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof to);
    }

    void serve() {
        std::string buffer(65536, '\0');
        std::deque<Pending> later;
        std::string held; // swapPairs: the first answer of a pair
        while (!m_stop) {
            pollfd watched{m_fd, POLLIN, 0};
            ::poll(&watched, 1, 5);
            const auto now = std::chrono::steady_clock::now();
            while (!later.empty() && later.front().at <= now) {
                send(later.front().bytes, later.front().to);
                later.pop_front();
            }
            sockaddr_in from{};
            socklen_t length = sizeof from;
            const ssize_t n = ::recvfrom(m_fd, buffer.data(), buffer.size(), MSG_DONTWAIT,
                                         reinterpret_cast<sockaddr*>(&from), &length);
            if (n < 0)
                continue;
            const std::string_view datagram(buffer.data(), size_t(n));
            if (m_script.sink) {
                onSink(datagram, from);
                continue;
            }
            const uint64_t index = ++m_received;
            if (m_script.dropEvery && index % m_script.dropEvery == 0) {
                ++m_dropped;
                continue;
            }
            std::string answer(datagram.substr(0, std::min(datagram.size(), m_script.answerBytes)));
            answer.resize(m_script.answerBytes, 'r');
            if (m_script.delayEvery && index % m_script.delayEvery == 0) {
                ++m_delayed;
                later.push_back({now + m_script.delay, answer, from});
                continue;
            }
            if (m_script.swapPairs && index % 2 == 1) {
                held = answer;
                continue;
            }
            send(answer, from);
            if (m_script.duplicate)
                send(answer, from);
            if (!held.empty()) {
                send(held, from);
                held.clear();
            }
            if (m_script.strayEvery && index % m_script.strayEvery == 0) {
                std::string stray(m_script.answerBytes, 's');
                engine::udp::putU64(stray.data(), uint64_t(1) << 40);
                send(stray, from);
                ++m_strays;
            }
        }
    }

    void onSink(std::string_view datagram, const sockaddr_in& from) {
        if (const auto header = engine::udp::readStreamHeader(datagram)) {
            ++m_streams[header->streamId];
            m_lastStream = header->streamId;
            return;
        }
        const auto query = engine::udp::readCountQuery(datagram);
        if (!query || !m_script.answerQueries)
            return;
        engine::udp::CountAnswer answer{*query, {}};
        const auto found = m_streams.find(query->streamId);
        answer.counts.datagrams = found == m_streams.end() ? 0 : found->second;
        answer.counts.bytes = answer.counts.datagrams * m_script.messageBytes;
        std::string bytes(engine::udp::kCountBytes, '\0');
        engine::udp::writeCountAnswer(bytes.data(), answer);
        send(bytes, from);
    }

    const Script m_script;
    int m_fd = -1;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    uint64_t m_received = 0;
    uint64_t m_dropped = 0;
    uint64_t m_delayed = 0;
    uint64_t m_strays = 0;
    std::map<uint32_t, uint64_t> m_streams;
    uint32_t m_lastStream = 0;
};

} // namespace loadscope::testing
