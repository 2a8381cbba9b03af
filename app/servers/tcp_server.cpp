#include "app/servers/tcp_server.h"

#include "app/servers/server_loop.h"
#include "engine/socket_address.h"

#include <cassert>
#include <cerrno>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <unistd.h>

namespace loadscope::app {

namespace {

std::string describeErrno(int error) {
    return std::generic_category().message(error);
}

std::string hostPort(const std::string& host, uint16_t port) {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

} // namespace

TcpServer::TcpServer(ServerConfig config)
    : m_config(std::move(config)) {}

TcpServer::~TcpServer() {
    // A subclass that forgot stop() would have its members destroyed under running loops.
    assert(!m_running);
    stop();
}

Result<void> TcpServer::prepare() {
    return {};
}

Result<void> TcpServer::start() {
    std::lock_guard lock(m_mutex);
    if (m_running)
        return invalidInput(QStringLiteral("the server is already running on %1")
                                .arg(QString::fromStdString(m_address)));
    const QString where = QString::fromStdString(hostPort(m_config.host, m_config.port));
    const auto cannotListen = [&where](ErrorCode code, const std::string& why) {
        return makeError(
            code,
            QStringLiteral("cannot listen on %1: %2").arg(where, QString::fromStdString(why)));
    };
    if (m_config.threads == 0)
        return cannotListen(ErrorCode::InvalidInput, "at least one thread is needed");
    if (auto prepared = prepare(); !prepared)
        return prepared.error();

    std::string lookupError;
    const auto local = engine::resolveAddress(m_config.host, m_config.port, &lookupError);
    if (!local)
        return cannotListen(ErrorCode::Unreachable, lookupError);
    const auto fail = [&](int code) {
        closeDescriptors();
        return cannotListen(ErrorCode::Io, describeErrno(code));
    };
    m_listenFd = socket(local->family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_listenFd < 0)
        return fail(errno);
    // Lets a restarted server rebind while old connections sit in TIME_WAIT; a live listener on
    // the port still makes bind() fail.
    const int one = 1;
    setsockopt(m_listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(m_listenFd, local->data(), local->length) != 0 || listen(m_listenFd, SOMAXCONN) != 0)
        return fail(errno);
    engine::SocketAddress bound;
    bound.length = sizeof bound.storage;
    if (getsockname(m_listenFd, reinterpret_cast<sockaddr*>(&bound.storage), &bound.length) != 0)
        return fail(errno);
    m_port = bound.port();
    m_address = bound.toString();

    m_wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (m_wakeFd < 0)
        return fail(errno);
    m_stopping.store(false, std::memory_order_release);
    m_loops.clear();
    for (uint32_t i = 0; i < m_config.threads; ++i) {
        auto loop = std::make_unique<ServerLoop>(*this, m_listenFd, m_wakeFd, m_stopping);
        if (!loop->open()) {
            const int code = errno;
            m_loops.clear();
            return fail(code);
        }
        m_loops.push_back(std::move(loop));
    }
    // Each thread reports its id before it runs its loop, so that start()
    // returns with every id known.
    std::vector<std::atomic<int>> ids(m_loops.size());
    try {
        for (size_t i = 0; i < m_loops.size(); ++i)
            m_threads.emplace_back([raw = m_loops[i].get(), id = &ids[i]] {
                id->store(int(gettid()), std::memory_order_release);
                raw->run();
            });
    } catch (const std::system_error& threadError) {
        stopLoops();
        m_loops.clear();
        return makeError(ErrorCode::Internal, QStringLiteral("cannot start the server threads: %1")
                                                  .arg(QString::fromUtf8(threadError.what())));
    }
    m_threadIds.clear();
    for (auto& id : ids) {
        while (id.load(std::memory_order_acquire) == 0)
            std::this_thread::yield();
        m_threadIds.push_back(id.load());
    }
    m_running = true;
    return {};
}

std::vector<int> TcpServer::threadIds() const {
    std::lock_guard lock(m_mutex);
    return m_running ? m_threadIds : std::vector<int>{};
}

void TcpServer::stop() {
    std::lock_guard lock(m_mutex);
    if (!m_running)
        return;
    stopLoops();
    m_running = false;
}

void TcpServer::stopLoops() {
    m_stopping.store(true, std::memory_order_release);
    // The eventfd stays readable, so every loop wakes, whichever epoll_wait it is in.
    const uint64_t wake = 1;
    [[maybe_unused]] const auto written = ::write(m_wakeFd, &wake, sizeof wake);
    for (auto& thread : m_threads)
        thread.join();
    m_threads.clear();
    closeDescriptors();
}

bool TcpServer::isRunning() const {
    std::lock_guard lock(m_mutex);
    return m_running;
}

uint16_t TcpServer::port() const {
    std::lock_guard lock(m_mutex);
    return m_port;
}

std::string TcpServer::address() const {
    std::lock_guard lock(m_mutex);
    return m_address;
}

ServerStats TcpServer::stats() const {
    std::lock_guard lock(m_mutex);
    ServerStats total;
    for (const auto& loop : m_loops) {
        const LoopCounters& c = loop->counters();
        total.connections += c.connections.load(std::memory_order_relaxed);
        total.activeConnections += c.activeConnections.load(std::memory_order_relaxed);
        total.bytesReceived += c.bytesReceived.load(std::memory_order_relaxed);
        total.bytesSent += c.bytesSent.load(std::memory_order_relaxed);
        total.requests += c.requests.load(std::memory_order_relaxed);
        total.errors += c.errors.load(std::memory_order_relaxed);
    }
    return total;
}

void TcpServer::closeDescriptors() {
    if (m_listenFd >= 0)
        ::close(m_listenFd);
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
    m_listenFd = -1;
    m_wakeFd = -1;
}

} // namespace loadscope::app
