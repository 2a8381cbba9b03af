#pragma once

#include "loopback_listener.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

// A peer that accepts and never reads; after `closeAfter` (0: never) it
// closes every connection with the bytes still unread, which the kernel turns
// into a reset. It records the receive buffer of what it accepted: the most
// its kernel can have taken and acknowledged without the peer reading.
class SilentPeer {
public:
    explicit SilentPeer(std::chrono::milliseconds closeAfter = {})
        : m_closeAfter(closeAfter) {
        m_listen = loadscope::testing::listenOnLoopback(0, 16, m_port);
        if (m_listen >= 0)
            m_thread = std::thread([this] { serve(); });
    }
    ~SilentPeer() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        if (m_listen >= 0)
            ::close(m_listen);
    }
    SilentPeer(const SilentPeer&) = delete;
    SilentPeer& operator=(const SilentPeer&) = delete;

    uint16_t port() const { return m_port; }
    int accepted() const { return m_accepted.load(); }
    int receiveBuffer() const { return m_receiveBuffer.load(); }

private:
    void serve() {
        std::vector<int> held;
        const auto start = std::chrono::steady_clock::now();
        bool closed = false;
        while (!m_stop) {
            pollfd listening{m_listen, POLLIN, 0};
            if (::poll(&listening, 1, 20) > 0) {
                const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd >= 0) {
                    int size = 0;
                    socklen_t length = sizeof size;
                    ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &length);
                    m_receiveBuffer = std::max(m_receiveBuffer.load(), size);
                    ++m_accepted;
                    held.push_back(fd);
                }
            }
            if (!closed && m_closeAfter.count() > 0 &&
                std::chrono::steady_clock::now() - start >= m_closeAfter) {
                for (int fd : held)
                    ::close(fd);
                held.clear();
                closed = true;
            }
        }
        for (int fd : held)
            ::close(fd);
    }

    std::chrono::milliseconds m_closeAfter;
    int m_listen = -1;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_accepted{0};
    std::atomic<int> m_receiveBuffer{0};
    std::thread m_thread;
};

} // namespace loadscope::testing
