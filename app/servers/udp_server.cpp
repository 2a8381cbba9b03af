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

// One socket and the thread that serves it.
class UdpLoop {
public:
    UdpLoop(int fd, std::unique_ptr<DatagramHandler> handler)
        : m_fd(fd)
        , m_handler(std::move(handler)) {}
    ~UdpLoop() { close(); }
    UdpLoop(const UdpLoop&) = delete;
    UdpLoop& operator=(const UdpLoop&) = delete;

    void run(UdpServer& server, const std::atomic<bool>& stopping) {
        server.serveSocket(m_fd, m_handler.get(), counters, stopping);
    }
    void wake() { ::shutdown(m_fd, SHUT_RDWR); }
    void close() {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

    UdpLoopCounters counters;

private:
    int m_fd;
    std::unique_ptr<DatagramHandler> m_handler;
};

namespace {

constexpr size_t kSlotBytes = 65536; // the largest UDP payload fits

// The peers of a batch and its answers, sent back in one sendmmsg.
void answer(int fd, DatagramReplies::Reply* replies, size_t count, sockaddr_storage* peers,
            const mmsghdr* reads, UdpLoopCounters& counters) {
    if (count == 0)
        return;
    mmsghdr sends[DatagramReplies::kBatch]{};
    for (size_t i = 0; i < count; ++i) {
        sends[i].msg_hdr.msg_name = &peers[replies[i].slot];
        sends[i].msg_hdr.msg_namelen = reads[replies[i].slot].msg_hdr.msg_namelen;
        sends[i].msg_hdr.msg_iov = replies[i].pieces;
        sends[i].msg_hdr.msg_iovlen = size_t(replies[i].pieceCount);
    }
    size_t done = 0;
    while (done < count) {
        const int sent = ::sendmmsg(fd, sends + done, unsigned(count - done), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            // The first of the rest failed (a peer's closed port, no buffer): it is counted and
            // the others still go.
            UdpLoopCounters::bump(counters.sendErrors, 1);
            ++done;
            continue;
        }
        uint64_t bytes = 0;
        for (int i = 0; i < sent; ++i)
            bytes += sends[done + size_t(i)].msg_len;
        UdpLoopCounters::bump(counters.datagramsSent, uint64_t(sent));
        UdpLoopCounters::bump(counters.bytesSent, bytes);
        done += size_t(sent);
    }
}

} // namespace

void UdpServer::serveSocket(int fd, DatagramHandler* handler, UdpLoopCounters& counters,
                            const std::atomic<bool>& stopping) {
    const std::unique_ptr<char[]> buffers(new char[DatagramReplies::kBatch * kSlotBytes]);
    sockaddr_storage peers[DatagramReplies::kBatch]{};
    mmsghdr reads[DatagramReplies::kBatch]{};
    iovec pieces[DatagramReplies::kBatch]{};
    for (size_t i = 0; i < DatagramReplies::kBatch; ++i)
        pieces[i] = {buffers.get() + i * kSlotBytes, kSlotBytes};
    DatagramReplies replies;
    while (!stopping.load(std::memory_order_acquire)) {
        for (size_t i = 0; i < DatagramReplies::kBatch; ++i) {
            reads[i].msg_hdr = {};
            reads[i].msg_hdr.msg_name = &peers[i];
            reads[i].msg_hdr.msg_namelen = sizeof peers[i];
            reads[i].msg_hdr.msg_iov = &pieces[i];
            reads[i].msg_hdr.msg_iovlen = 1;
        }
        // One blocking call for the first datagram and whatever else is queued behind it.
        const int n = ::recvmmsg(fd, reads, DatagramReplies::kBatch, MSG_WAITFORONE, nullptr);
        if (n <= 0 || stopping.load(std::memory_order_acquire))
            continue; // the read's timeout, a signal, the stop's shutdown or an ICMP error
        replies.clear();
        uint64_t bytes = 0;
        for (int i = 0; i < n; ++i) {
            const std::string_view datagram(buffers.get() + size_t(i) * kSlotBytes,
                                            reads[i].msg_len);
            bytes += datagram.size();
            bool countQuery = false;
            if (handler)
                handler->onDatagram(size_t(i), datagram, replies, countQuery);
            if (countQuery)
                UdpLoopCounters::bump(counters.countQueries, 1);
        }
        UdpLoopCounters::bump(counters.datagramsReceived, uint64_t(n));
        UdpLoopCounters::bump(counters.bytesReceived, bytes);
        answer(fd, replies.replies(), replies.count(), peers, reads, counters);
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
        m_loops.push_back(std::make_unique<UdpLoop>(fd, createHandler()));
    sockets.clear();
    std::vector<std::atomic<int>> ids(m_loops.size());
    try {
        for (size_t i = 0; i < m_loops.size(); ++i)
            m_threads.emplace_back([this, raw = m_loops[i].get(), id = &ids[i]] {
                id->store(int(gettid()), std::memory_order_release);
                raw->run(*this, m_stopping);
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
        const UdpLoopCounters& c = loop->counters;
        total.datagramsReceived += c.datagramsReceived.load(std::memory_order_relaxed);
        total.bytesReceived += c.bytesReceived.load(std::memory_order_relaxed);
        total.datagramsSent += c.datagramsSent.load(std::memory_order_relaxed);
        total.bytesSent += c.bytesSent.load(std::memory_order_relaxed);
        total.sendErrors += c.sendErrors.load(std::memory_order_relaxed);
        total.countQueries += c.countQueries.load(std::memory_order_relaxed);
    }
    return total;
}

} // namespace loadscope::app
