#include "hostile_peer.h"

#include "loopback_listener.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sched.h>
#include <string>
#include <string_view>

namespace loadscope::testing {

namespace {

using Mode = HostilePeer::Mode;

constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr size_t kFrameHeaderBytes = 9;
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kSettings = 0x4, kPushPromise = 0x5,
                  kWindowUpdate = 0x8, kUnknownType = 0xFA;
constexpr uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4;
constexpr uint16_t kMaxConcurrentStreams = 0x3;

void putUint(std::string& out, uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i)
        out.push_back(char((value >> (8 * i)) & 0xFF));
}

// One HTTP/2 frame (RFC 9113 4.1).
std::string frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
    std::string out;
    putUint(out, payload.size(), 3);
    out.push_back(char(type));
    out.push_back(char(flags));
    putUint(out, stream & 0x7FFFFFFFu, 4);
    out.append(payload);
    return out;
}

std::string bytes(std::initializer_list<uint8_t> list) {
    return std::string(list.begin(), list.end());
}

// HPACK (RFC 7541) written by hand: 0x88 is ":status: 200" from the static
// table; 0x0F 0x0D is a literal of static name 28, content-length; 0x08 one
// of static name 8, :status, with a value of our choosing.
const std::string kStatus200 = bytes({0x88});
std::string contentLength(std::string_view value) {
    return bytes({0x0F, 0x0D, uint8_t(value.size())}) + std::string(value);
}

// Whole frames, so that a write cut anywhere resumes mid-frame, never
// interleaved with another frame (the loop sends other frames only between
// two rounds of it).
std::string floodOf(Mode mode) {
    std::string flood;
    if (mode == Mode::H2FloodWindowUpdate) {
        std::string increment;
        putUint(increment, 1, 4);
        const std::string one = frame(kWindowUpdate, 0, 0, increment);
        while (flood.size() + one.size() <= 64 * 1024)
            flood += one;
    } else if (mode == Mode::H2FloodUnknownFrames) {
        const std::string one = frame(kUnknownType, 0, 0, std::string(16 * 1024, '\0'));
        for (int i = 0; i < 4; ++i)
            flood += one;
    } else if (mode == Mode::Http1EndlessBody) {
        flood.assign(64 * 1024, 'x');
    }
    return flood;
}

bool floods(Mode mode) {
    return mode == Mode::H2FloodWindowUpdate || mode == Mode::H2FloodUnknownFrames;
}

// What the server sends for a request on `stream` (the n-th of the connection, from 0).
std::string answer(Mode mode, uint32_t stream, uint64_t nth) {
    switch (mode) {
    case Mode::H2NoStreams:
        if (nth > 0)
            return {};
        return frame(kHeaders, kEndHeaders, stream, kStatus200 + contentLength("2")) +
               frame(kData, kEndStream, stream, "ok");
    case Mode::H2BadStatus:
        return frame(kHeaders, kEndHeaders | kEndStream, stream, bytes({0x08, 0x03}) + "abc");
    case Mode::H2NoStatus:
        return frame(kHeaders, kEndHeaders | kEndStream, stream, contentLength("0"));
    case Mode::H2ShortBody:
        return frame(kHeaders, kEndHeaders, stream, kStatus200 + contentLength("100")) +
               frame(kData, kEndStream, stream, "hello");
    case Mode::H2DataOnStreamZero:
        return frame(kData, 0, 0, "x");
    case Mode::H2PushPromise: {
        std::string promise;
        putUint(promise, 2, 4);               // the promised stream
        promise += bytes({0x82, 0x86, 0x84}); // GET http /
        return frame(kPushPromise, kEndHeaders, stream, promise);
    }
    case Mode::H2OversizedFrame:
        return frame(kData, 0, stream, std::string(20000, '\0'));
    case Mode::H2BadHpack:
        // An indexed field whose index no table holds.
        return frame(kHeaders, kEndHeaders | kEndStream, stream,
                     bytes({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}));
    default:
        return {};
    }
}

} // namespace

HostilePeer::HostilePeer(Mode mode, int cpu)
    : m_mode(mode)
    , m_cpu(cpu) {
    uint16_t port = 0;
    m_listen = listenOnLoopback(0, 64, port);
    if (m_listen < 0)
        return;
    m_port = port;
    m_acceptor = std::thread([this] { acceptLoop(); });
}

HostilePeer::~HostilePeer() {
    m_stop = true;
    if (m_acceptor.joinable())
        m_acceptor.join();
    std::vector<std::thread> served;
    {
        std::lock_guard lock(m_mutex);
        served.swap(m_served);
    }
    for (std::thread& thread : served)
        thread.join();
    if (m_listen >= 0)
        ::close(m_listen);
}

void HostilePeer::acceptLoop() {
    while (!m_stop) {
        pollfd listening{m_listen, POLLIN, 0};
        if (::poll(&listening, 1, 50) <= 0)
            continue;
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        ++m_connections;
        std::lock_guard lock(m_mutex);
        m_served.emplace_back([this, fd] { serve(fd); });
    }
}

void HostilePeer::serve(int fd) {
    if (m_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(m_cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    const bool http2 = m_mode != Mode::Http1EndlessBody;
    const std::string flood = floodOf(m_mode);
    bool flooding = floods(m_mode);
    size_t floodOffset = 0;
    std::string in;
    std::string out;
    bool prefaceSeen = false;
    uint64_t answered = 0;
    if (http2) {
        // The server's connection preface is its SETTINGS.
        std::string settings;
        if (m_mode == Mode::H2NoStreams) {
            putUint(settings, kMaxConcurrentStreams, 2);
            putUint(settings, 0, 4);
        }
        out = frame(kSettings, 0, 0, settings);
    }
    const auto onFrame = [&](uint8_t type, uint8_t flags, uint32_t stream) {
        if (type == kSettings && !(flags & kAck))
            out += frame(kSettings, kAck, 0, {});
        if (type == kHeaders && stream % 2 == 1) {
            ++m_streams;
            out += answer(m_mode, stream, answered++);
        }
    };
    char buffer[16384];
    while (!m_stop) {
        const bool writing = !out.empty() || flooding;
        pollfd p{fd, short(POLLIN | (writing ? POLLOUT : 0)), 0};
        if (::poll(&p, 1, 50) <= 0)
            continue;
        if (p.revents & POLLIN) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                break;
            if (n > 0 && in.size() < (1u << 20))
                in.append(buffer, size_t(n));
        }
        if (http2) {
            if (!prefaceSeen && in.size() >= kClientPreface.size()) {
                if (std::string_view(in).substr(0, kClientPreface.size()) != kClientPreface)
                    break;
                in.erase(0, kClientPreface.size());
                prefaceSeen = true;
            }
            while (prefaceSeen && in.size() >= kFrameHeaderBytes) {
                const auto byte = [&](size_t i) {
                    return uint32_t(uint8_t(in[i]));
                };
                const size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
                if (in.size() < kFrameHeaderBytes + length)
                    break;
                const uint32_t stream =
                    ((byte(5) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8)) & 0x7FFFFFFFu;
                onFrame(uint8_t(in[3]), uint8_t(in[4]), stream);
                in.erase(0, kFrameHeaderBytes + length);
            }
        } else if (!flooding && in.find("\r\n\r\n") != std::string::npos) {
            ++m_streams;
            out = "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n";
            flooding = true;
            in.clear();
        }
        // As much as the socket takes before the next look at it: a flood
        // that waited for poll between two writes would let the client's
        // reads catch up.
        bool failed = false;
        while ((p.revents & POLLOUT) && !m_stop) {
            // Other frames go out only between two rounds of the flood.
            const bool own = !out.empty() && floodOffset == 0;
            const std::string_view pending =
                own ? std::string_view(out) : std::string_view(flood).substr(floodOffset);
            if (pending.empty())
                break;
            const ssize_t n = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
            if (n < 0) {
                failed = errno != EAGAIN && errno != EINTR;
                break;
            }
            m_sent += uint64_t(n);
            if (own)
                out.erase(0, size_t(n));
            else
                floodOffset = (floodOffset + size_t(n)) % flood.size();
        }
        if (failed)
            break;
        if (p.revents & (POLLERR | POLLHUP))
            break;
    }
    ::close(fd);
}

} // namespace loadscope::testing
