#include "canned_reply_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

namespace {

constexpr int kPollMs = 20; // bounds how long the destructor waits for the thread

struct Client {
    int fd = -1;
    QByteArray pending; // bytes of a request not yet complete
};

bool sendAll(int fd, const QByteArray& bytes) {
    qsizetype sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n =
            ::send(fd, bytes.constData() + sent, size_t(bytes.size() - sent), MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        sent += n;
    }
    return true;
}

} // namespace

CannedReplyServer::CannedReplyServer(QByteArray reply, bool closeAfterReply, char delimiter)
    : m_reply(std::move(reply))
    , m_closeAfterReply(closeAfterReply)
    , m_delimiter(delimiter) {
    m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (m_listenFd < 0 ||
        ::bind(m_listenFd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(m_listenFd, 128) != 0 ||
        ::getsockname(m_listenFd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        return;
    m_port = ntohs(address.sin_port);
    m_thread = std::thread([this] { serve(); });
}

CannedReplyServer::~CannedReplyServer() {
    m_stop.store(true);
    if (m_thread.joinable())
        m_thread.join();
    if (m_listenFd >= 0)
        ::close(m_listenFd);
}

void CannedReplyServer::serve() {
    std::vector<Client> clients;
    char buffer[16 * 1024];
    while (!m_stop.load()) {
        std::vector<pollfd> fds{{m_listenFd, POLLIN, 0}};
        for (const Client& client : clients)
            fds.push_back({client.fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), kPollMs) <= 0)
            continue;
        if (fds[0].revents & POLLIN) {
            const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                clients.push_back({fd, {}});
                ++m_connections;
            }
        }
        for (size_t i = 1; i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            Client& client = clients[i - 1];
            const ssize_t n = ::recv(client.fd, buffer, sizeof buffer, 0);
            bool open = n > 0;
            if (open)
                client.pending.append(buffer, n);
            qsizetype end = 0;
            while (open && (end = client.pending.indexOf(m_delimiter)) >= 0) {
                client.pending.remove(0, end + 1);
                ++m_requests;
                open = sendAll(client.fd, m_reply) && !m_closeAfterReply;
            }
            if (!open) {
                ::close(client.fd);
                client.fd = -1;
            }
        }
        std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
    }
    for (const Client& client : clients)
        ::close(client.fd);
}

} // namespace loadscope::testing
