#pragma once

// Blocking client sockets with timeouts for talking to servers in tests: a server bug fails the
// test instead of hanging it.

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace loadscope::testing {

inline constexpr int kIoTimeoutMs = 5000;

// An owned client socket; closes on destruction.
class Socket {
public:
    Socket() = default;
    explicit Socket(int fd)
        : m_fd(fd) {}
    Socket(Socket&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1)) {}
    Socket& operator=(Socket&& other) noexcept {
        std::swap(m_fd, other.m_fd);
        return *this;
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    ~Socket() { close(); }

    int fd() const { return m_fd; }
    bool isValid() const { return m_fd >= 0; }
    void close() {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd = -1;
};

inline sockaddr_in loopback(uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

inline Socket connectTo(uint16_t port) {
    Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    timeval timeout{kIoTimeoutMs / 1000, 0};
    setsockopt(socket.fd(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(socket.fd(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const sockaddr_in address = loopback(port);
    if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
        return Socket();
    return socket;
}

inline bool sendAll(const Socket& socket, std::string_view data) {
    while (!data.empty()) {
        const ssize_t sent = ::send(socket.fd(), data.data(), data.size(), MSG_NOSIGNAL);
        if (sent <= 0)
            return false;
        data.remove_prefix(size_t(sent));
    }
    return true;
}

// Up to `size` bytes; fewer when the peer closes, fails or the receive timeout expires.
inline std::string receiveExactly(const Socket& socket, size_t size) {
    std::string data(size, '\0');
    size_t have = 0;
    while (have < size) {
        const ssize_t got = ::recv(socket.fd(), data.data() + have, size - have, 0);
        if (got <= 0)
            break;
        have += size_t(got);
    }
    data.resize(have);
    return data;
}

enum class EndOfStream { Closed, Reset, TimedOut };

// Reads until the peer closes; says how the stream ended.
inline EndOfStream receiveUntilClosed(const Socket& socket, std::string* data = nullptr,
                                      size_t limit = 1 << 20) {
    char buffer[16384];
    size_t total = 0;
    while (total <= limit) {
        const ssize_t got = ::recv(socket.fd(), buffer, sizeof buffer, 0);
        if (got == 0)
            return EndOfStream::Closed;
        if (got < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? EndOfStream::TimedOut
                                                           : EndOfStream::Reset;
        total += size_t(got);
        if (data)
            data->append(buffer, size_t(got));
    }
    return EndOfStream::TimedOut;
}

// True when nothing arrives within `wait`: the server owes nothing more.
inline bool staysQuiet(const Socket& socket, std::chrono::milliseconds wait) {
    pollfd entry{socket.fd(), POLLIN, 0};
    return ::poll(&entry, 1, int(wait.count())) == 0;
}

// One HTTP response: the head up to the blank line, then Content-Length body bytes unless
// `headOnly`. Empty when the response does not arrive whole.
inline std::string receiveHttpResponse(const Socket& socket, bool headOnly = false) {
    std::string response;
    char byte = 0;
    while (response.size() < 65536 && response.find("\r\n\r\n") == std::string::npos) {
        if (::recv(socket.fd(), &byte, 1, 0) != 1)
            return {};
        response.push_back(byte);
    }
    if (headOnly)
        return response;
    const size_t field = response.find("Content-Length: ");
    if (field == std::string::npos)
        return {};
    const size_t length = std::stoul(response.substr(field + 16));
    const std::string body = receiveExactly(socket, length);
    if (body.size() != length)
        return {};
    return response + body;
}

inline std::string randomBytes(size_t size, uint64_t seed) {
    std::mt19937_64 generator(seed);
    std::string data(size, '\0');
    for (size_t i = 0; i + 8 <= size; i += 8) {
        const uint64_t value = generator();
        std::memcpy(data.data() + i, &value, 8);
    }
    for (size_t i = size - size % 8; i < size; ++i)
        data[i] = char(generator());
    return data;
}

struct Exchange {
    std::string received;
    bool sentAll = false;
    EndOfStream end = EndOfStream::TimedOut;
};

// Sends `data` while reading what comes back (a relay with bounded buffers would otherwise stall
// both sides), half-closes once everything is sent, and reads until the peer closes.
inline Exchange exchangeThenHalfClose(const Socket& socket, const std::string& data,
                                      std::chrono::milliseconds limit) {
    Exchange result;
    fcntl(socket.fd(), F_SETFL, fcntl(socket.fd(), F_GETFL) | O_NONBLOCK);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    size_t sent = 0;
    char buffer[65536];
    while (std::chrono::steady_clock::now() < deadline) {
        if (sent == data.size() && !result.sentAll) {
            ::shutdown(socket.fd(), SHUT_WR);
            result.sentAll = true;
        }
        pollfd entry{socket.fd(), short(POLLIN | (result.sentAll ? 0 : POLLOUT)), 0};
        if (::poll(&entry, 1, 100) <= 0)
            continue;
        if ((entry.revents & POLLOUT) && !result.sentAll) {
            const size_t chunk = std::min<size_t>(data.size() - sent, 65536);
            const ssize_t written = ::send(socket.fd(), data.data() + sent, chunk, MSG_NOSIGNAL);
            if (written > 0)
                sent += size_t(written);
            else if (written < 0 && errno != EAGAIN) {
                result.end = EndOfStream::Reset;
                return result;
            }
        }
        if (entry.revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t got = ::recv(socket.fd(), buffer, sizeof buffer, 0);
            if (got == 0) {
                result.end = EndOfStream::Closed;
                return result;
            }
            if (got > 0)
                result.received.append(buffer, size_t(got));
            else if (errno != EAGAIN) {
                result.end = EndOfStream::Reset;
                return result;
            }
        }
    }
    return result;
}

// A listening socket on a free port that the test drives by hand, for upstream behaviours the
// embedded servers do not have. Made with `listening` false it is only bound, refusing
// connections as a server still starting does, until listen().
class RawListener {
public:
    explicit RawListener(bool listening = true) {
        m_socket = Socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address = loopback(0);
        ::bind(m_socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address);
        if (listening)
            listen();
        socklen_t length = sizeof address;
        ::getsockname(m_socket.fd(), reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
    }
    uint16_t port() const { return m_port; }
    void listen() const { ::listen(m_socket.fd(), 16); }

    Socket accept(std::chrono::milliseconds wait) const {
        pollfd entry{m_socket.fd(), POLLIN, 0};
        if (::poll(&entry, 1, int(wait.count())) != 1)
            return Socket();
        Socket client(::accept4(m_socket.fd(), nullptr, nullptr, SOCK_CLOEXEC));
        timeval timeout{kIoTimeoutMs / 1000, 0};
        setsockopt(client.fd(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        setsockopt(client.fd(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        return client;
    }

private:
    Socket m_socket;
    uint16_t m_port = 0;
};

// A port with nothing listening: bound (so no one else gets it) but never listen()ed on, so
// connecting is refused.
class ClosedPort {
public:
    ClosedPort() {
        m_socket = Socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address = loopback(0);
        ::bind(m_socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address);
        socklen_t length = sizeof address;
        ::getsockname(m_socket.fd(), reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
    }
    uint16_t port() const { return m_port; }

private:
    Socket m_socket;
    uint16_t m_port = 0;
};

} // namespace loadscope::testing
