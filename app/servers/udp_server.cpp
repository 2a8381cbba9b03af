#include "app/servers/udp_server.h"

#include "engine/socket_address.h"
#include "engine/udp_datagram.h"

#include <cassert>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
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

// How long a loop's blocking read waits before it looks at the stop flag again, should the
// shutdown that wakes it (stopLoops) not reach it.
constexpr timeval kReadWait{0, 200'000};

void bump(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

} // namespace

void DatagramReplies::add(size_t slot, std::string_view first, std::string_view second) {
    if (m_count == kBatch)
        return;
    Reply& reply = m_replies[m_count++];
    reply.slot = slot;
    reply.pieces[0] = {const_cast<char*>(first.data()), first.size()};
    reply.pieces[1] = {const_cast<char*>(second.data()), second.size()};
    reply.pieceCount = second.empty() ? 1 : 2;
}

char* DatagramReplies::addOwn(size_t slot, size_t bytes) {
    if (m_count == kBatch || bytes > kOwnBytes)
        return nullptr;
    Reply& reply = m_replies[m_count++];
    reply.slot = slot;
    reply.pieces[0] = {reply.own, bytes};
    reply.pieceCount = 1;
    return reply.own;
}

// One socket read and answered by one thread.
class UdpLoop {
public:
    UdpLoop(int fd, std::unique_ptr<DatagramHandler> handler, const std::atomic<bool>& stopping)
        : m_fd(fd)
        , m_handler(std::move(handler))
        , m_stopping(stopping)
        , m_buffers(new char[DatagramReplies::kBatch * kSlotBytes]) {}
    ~UdpLoop() { close(); }
    void close() {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }
    UdpLoop(const UdpLoop&) = delete;
    UdpLoop& operator=(const UdpLoop&) = delete;

    void run();
    void wake() { ::shutdown(m_fd, SHUT_RDWR); }

    std::atomic<uint64_t> datagramsReceived{0};
    std::atomic<uint64_t> bytesReceived{0};
    std::atomic<uint64_t> datagramsSent{0};
    std::atomic<uint64_t> bytesSent{0};
    std::atomic<uint64_t> sendErrors{0};
    std::atomic<uint64_t> countQueries{0};

private:
    static constexpr size_t kSlotBytes = 65536; // the largest UDP payload fits

    void answer(DatagramReplies& replies, size_t count);

    int m_fd;
    std::unique_ptr<DatagramHandler> m_handler;
    const std::atomic<bool>& m_stopping;
    std::unique_ptr<char[]> m_buffers;
    sockaddr_storage m_peers[DatagramReplies::kBatch]{};
    mmsghdr m_reads[DatagramReplies::kBatch]{};
    iovec m_readPieces[DatagramReplies::kBatch]{};
};

void UdpLoop::run() {
    for (size_t i = 0; i < DatagramReplies::kBatch; ++i)
        m_readPieces[i] = {m_buffers.get() + i * kSlotBytes, kSlotBytes};
    DatagramReplies replies;
    while (!m_stopping.load(std::memory_order_acquire)) {
        for (size_t i = 0; i < DatagramReplies::kBatch; ++i) {
            m_reads[i].msg_hdr = {};
            m_reads[i].msg_hdr.msg_name = &m_peers[i];
            m_reads[i].msg_hdr.msg_namelen = sizeof m_peers[i];
            m_reads[i].msg_hdr.msg_iov = &m_readPieces[i];
            m_reads[i].msg_hdr.msg_iovlen = 1;
        }
        // One blocking call for the first datagram and whatever else is queued behind it.
        const int n = ::recvmmsg(m_fd, m_reads, DatagramReplies::kBatch, MSG_WAITFORONE, nullptr);
        if (n <= 0 || m_stopping.load(std::memory_order_acquire))
            continue; // the read's timeout, a signal, the stop's shutdown or an ICMP error
        replies.m_count = 0;
        uint64_t bytes = 0;
        for (int i = 0; i < n; ++i) {
            const std::string_view datagram(m_buffers.get() + size_t(i) * kSlotBytes,
                                            m_reads[i].msg_len);
            bytes += datagram.size();
            bool countQuery = false;
            m_handler->onDatagram(size_t(i), datagram, replies, countQuery);
            if (countQuery)
                bump(countQueries, 1);
        }
        bump(datagramsReceived, uint64_t(n));
        bump(bytesReceived, bytes);
        answer(replies, replies.m_count);
    }
}

void UdpLoop::answer(DatagramReplies& replies, size_t count) {
    if (count == 0)
        return;
    mmsghdr sends[DatagramReplies::kBatch]{};
    for (size_t i = 0; i < count; ++i) {
        DatagramReplies::Reply& reply = replies.m_replies[i];
        sends[i].msg_hdr.msg_name = &m_peers[reply.slot];
        sends[i].msg_hdr.msg_namelen = m_reads[reply.slot].msg_hdr.msg_namelen;
        sends[i].msg_hdr.msg_iov = reply.pieces;
        sends[i].msg_hdr.msg_iovlen = size_t(reply.pieceCount);
    }
    size_t done = 0;
    while (done < count) {
        const int sent = ::sendmmsg(m_fd, sends + done, unsigned(count - done), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            // The first of the rest failed (a peer's closed port, no buffer): it is counted and
            // the others still go.
            bump(sendErrors, 1);
            ++done;
            continue;
        }
        uint64_t bytes = 0;
        for (int i = 0; i < sent; ++i)
            bytes += sends[done + size_t(i)].msg_len;
        bump(datagramsSent, uint64_t(sent));
        bump(bytesSent, bytes);
        done += size_t(sent);
    }
}

UdpServer::UdpServer(ServerConfig config)
    : m_config(std::move(config)) {}

UdpServer::~UdpServer() {
    assert(!m_running);
    stop();
}

Result<void> UdpServer::prepare() {
    return {};
}

Result<void> UdpServer::start() {
    std::lock_guard lock(m_mutex);
    if (m_running)
        return invalidInput(QStringLiteral("the server is already running on %1")
                                .arg(QString::fromStdString(m_address)));
    const QString where = QString::fromStdString(hostPort(m_config.host, m_config.port));
    const auto cannotBind = [&where](ErrorCode code, const std::string& why) {
        return makeError(
            code, QStringLiteral("cannot bind UDP %1: %2").arg(where, QString::fromStdString(why)));
    };
    if (m_config.threads == 0)
        return cannotBind(ErrorCode::InvalidInput, "at least one thread is needed");
    if (auto prepared = prepare(); !prepared)
        return prepared.error();
    std::string lookupError;
    auto local = engine::resolveAddress(m_config.host, m_config.port, &lookupError);
    if (!local)
        return cannotBind(ErrorCode::Unreachable, lookupError);

    std::vector<int> sockets;
    const auto fail = [&](int code) {
        for (const int fd : sockets)
            ::close(fd);
        return cannotBind(ErrorCode::Io, describeErrno(code));
    };
    if (m_config.port != 0) {
        // SO_REUSEPORT would let the group join another group of the same user on this port:
        // a plain bind first says whether anyone holds it.
        const int probe = ::socket(local->family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (probe < 0)
            return fail(errno);
        const bool taken = ::bind(probe, local->data(), local->length) != 0;
        const int code = errno;
        ::close(probe);
        if (taken)
            return fail(code);
    }
    const int one = 1;
    for (uint32_t i = 0; i < m_config.threads; ++i) {
        const int fd = ::socket(local->family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return fail(errno);
        sockets.push_back(fd);
        if (::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kReadWait, sizeof kReadWait) != 0 ||
            ::bind(fd, local->data(), local->length) != 0)
            return fail(errno);
        if (i == 0) {
            // Port 0: the kernel's pick is where the rest of the group binds.
            engine::SocketAddress bound;
            bound.length = sizeof bound.storage;
            if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound.storage), &bound.length) != 0)
                return fail(errno);
            m_port = bound.port();
            m_address = bound.toString();
            local = bound;
        }
    }
    m_stopping.store(false, std::memory_order_release);
    m_loops.clear();
    for (const int fd : sockets)
        m_loops.push_back(std::make_unique<UdpLoop>(fd, createHandler(), m_stopping));
    sockets.clear();
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

void UdpServer::stop() {
    std::lock_guard lock(m_mutex);
    if (!m_running)
        return;
    stopLoops();
    m_running = false;
}

void UdpServer::stopLoops() {
    m_stopping.store(true, std::memory_order_release);
    for (auto& loop : m_loops)
        loop->wake();
    for (auto& thread : m_threads)
        thread.join();
    m_threads.clear();
    for (auto& loop : m_loops)
        loop->close(); // the port is free again; the counts stay for stats()
}

bool UdpServer::isRunning() const {
    std::lock_guard lock(m_mutex);
    return m_running;
}

uint16_t UdpServer::port() const {
    std::lock_guard lock(m_mutex);
    return m_port;
}

std::string UdpServer::address() const {
    std::lock_guard lock(m_mutex);
    return m_address;
}

std::vector<int> UdpServer::threadIds() const {
    std::lock_guard lock(m_mutex);
    return m_running ? m_threadIds : std::vector<int>{};
}

UdpServerStats UdpServer::stats() const {
    std::lock_guard lock(m_mutex);
    UdpServerStats total;
    for (const auto& loop : m_loops) {
        total.datagramsReceived += loop->datagramsReceived.load(std::memory_order_relaxed);
        total.bytesReceived += loop->bytesReceived.load(std::memory_order_relaxed);
        total.datagramsSent += loop->datagramsSent.load(std::memory_order_relaxed);
        total.bytesSent += loop->bytesSent.load(std::memory_order_relaxed);
        total.sendErrors += loop->sendErrors.load(std::memory_order_relaxed);
        total.countQueries += loop->countQueries.load(std::memory_order_relaxed);
    }
    return total;
}

} // namespace loadscope::app
