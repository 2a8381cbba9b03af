#include "scripted_http_server.h"

#include "loopback_listener.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

namespace {

void sendAll(int fd, const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A large body fills the socket: wait (bounded) for the client to read.
            pollfd writable{fd, POLLOUT, 0};
            if (::poll(&writable, 1, 5000) > 0)
                continue;
        }
        if (n <= 0)
            return; // the client went away; the test looks at what it counted
        sent += size_t(n);
    }
}

std::unordered_map<int, std::string>& pending() {
    thread_local std::unordered_map<int, std::string> buffers;
    return buffers;
}

std::unordered_map<int, uint64_t>& answeredOn() {
    thread_local std::unordered_map<int, uint64_t> counts;
    return counts;
}

} // namespace

ScriptedHttpServer::ScriptedHttpServer(Behaviour behaviour, size_t bodySize, int closeEvery)
    : m_behaviour(behaviour)
    , m_bodySize(bodySize)
    , m_closeEvery(closeEvery) {
    m_listen = loadscope::testing::listenOnLoopback(0, 4096, m_port);
    if (m_listen < 0)
        throw std::runtime_error("scripted server cannot listen");
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    for (int fd : {m_listen, m_wake}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
    }
    m_thread = std::thread([this] { loop(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_wake, &one, sizeof one);
    m_thread.join();
    ::close(m_listen);
    ::close(m_epoll);
    ::close(m_wake);
}

size_t ScriptedHttpServer::responseSize(bool closing) const {
    return response(closing, false).size();
}

std::string ScriptedHttpServer::response(bool closing, bool longer) const {
    const size_t size = m_bodySize + (longer ? 1 : 0);
    std::string head = "HTTP/1.1 200 OK\r\nServer: scripted/1.0\r\nContent-Type: text/html\r\n"
                       "Content-Length: " +
                       std::to_string(size) +
                       "\r\nConnection: " + (closing ? "close" : "keep-alive") + "\r\n\r\n";
    return head + std::string(size, 'x');
}

void ScriptedHttpServer::loop() {
    epoll_event events[64];
    std::unordered_map<int, uint64_t> answered;
    for (;;) {
        const int n = ::epoll_wait(m_epoll, events, 64, 1000);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_wake) {
                for (auto& [open, _] : pending())
                    ::close(open);
                pending().clear();
                return;
            }
            if (fd == m_listen) {
                for (;;) {
                    const int client =
                        ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (client < 0)
                        break;
                    ++m_accepted;
                    const int open = ++m_open;
                    int peak = m_peakOpen.load();
                    while (open > peak && !m_peakOpen.compare_exchange_weak(peak, open)) {
                    }
                    pending()[client];
                    epoll_event ev{};
                    ev.events = EPOLLIN;
                    ev.data.fd = client;
                    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, client, &ev);
                }
                continue;
            }
            onReadable(fd);
        }
    }
}

void ScriptedHttpServer::onReadable(int fd) {
    char buffer[16384];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    const auto closeClient = [&] {
        pending().erase(fd);
        answeredOn().erase(fd);
        ::close(fd);
        --m_open;
    };
    if (n <= 0) {
        closeClient();
        return;
    }
    std::string& in = pending()[fd];
    in.append(buffer, size_t(n));
    for (;;) {
        const size_t end = in.find("\r\n\r\n");
        if (end == std::string::npos)
            return;
        const bool clientCloses = in.substr(0, end).find("Connection: close") != std::string::npos;
        in.erase(0, end + 4);
        const uint64_t number = ++m_requests;
        switch (m_behaviour) {
        case Behaviour::KeepAlive:
            sendAll(fd, response(clientCloses, false));
            break;
        case Behaviour::CloseEveryNth: {
            const bool closing = clientCloses || number % uint64_t(m_closeEvery) == 0;
            sendAll(fd, response(closing, false));
            if (closing) {
                closeClient();
                return;
            }
            break;
        }
        case Behaviour::CloseSilently:
            sendAll(fd, response(false, false));
            closeClient();
            return;
        case Behaviour::CloseSilentlyEveryNth:
            sendAll(fd, response(clientCloses, false));
            if (clientCloses || ++answeredOn()[fd] % uint64_t(m_closeEvery) == 0) {
                closeClient();
                return;
            }
            break;
        case Behaviour::NeverAnswer:
            break;
        case Behaviour::MalformedStatus:
            sendAll(fd, "HTTP/1.1 abc\r\nContent-Length: 0\r\n\r\n");
            break;
        case Behaviour::ResetMidResponse: {
            const std::string whole = response(false, false);
            sendAll(fd, whole.substr(0, whole.size() / 2));
            linger hard{1, 0};
            ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
            closeClient();
            return;
        }
        case Behaviour::ShortBody:
            sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
            closeClient();
            return;
        case Behaviour::HugeHeaders: {
            std::string head = "HTTP/1.1 200 OK\r\n";
            while (head.size() < 70 * 1024)
                head += "X-Filler: " + std::string(1000, 'f') + "\r\n";
            sendAll(fd, head + "Content-Length: 0\r\n\r\n");
            break;
        }
        case Behaviour::BadChunkSize:
            sendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
            break;
        case Behaviour::VaryingLength:
            sendAll(fd, response(clientCloses, number % 2 == 0));
            break;
        }
        if (clientCloses) {
            closeClient();
            return;
        }
    }
}
