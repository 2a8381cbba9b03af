#include "engine/load_worker.h"

#include "engine/vector_state.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::engine::detail {

namespace {

constexpr size_t kReadBufferBytes = 64 * 1024;
constexpr int kMaxEvents = 256;
constexpr int64_t kPublishPeriodNs = 25'000'000;
constexpr int64_t kTimeoutScanPeriodNs = 20'000'000;
constexpr int64_t kReconnectBackoffNs = 10'000'000;
constexpr int kWaitMs = 10; // bounds how late a cancel or a deadline is noticed

int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

int64_t monotonicNs() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct LoadWorker::Connection {
    enum class State : uint8_t { Closed, Connecting, Open };

    uint32_t index = 0;
    int fd = -1;
    State state = State::Closed;
    std::unique_ptr<ProtocolSession> session;
    int64_t connectStartNs = 0;
    int64_t connectNs = 0;     // charged to the first request on the connection
    int64_t reconnectAtNs = 0; // after a failure, wait before trying again
    bool connectCharged = false;
    bool wantWrite = false;
    bool watched = false; // in the epoll set (see setWatched)
    bool everConnected = false;
    bool queuedForOpen = false;
    bool blockingReads = false; // recv without MSG_DONTWAIT blocks, at most kWaitMs
    uint32_t responses = 0;     // on this connection
    uint32_t retries = 0;       // requests to send again after the peer closed a reused connection
    uint32_t retriesBudgeted = 0; // how many of them drew on a counted run's budget
    bool reserved = false; // a request claimed before connecting, for which the connection opens
    bool reservedBudgeted = false;
    bool draining = false;      // a stream connection shut down for writing, waiting for the close
    int64_t acknowledgedNs = 0; // while draining: when the peer had acknowledged every byte
    std::string out;
    size_t outOffset = 0;
    size_t unsent = 0;          // requests in `out` whose sentNs is not set yet
    std::vector<InFlight> ring; // capacity = pipeline depth
    size_t head = 0;
    size_t count = 0;

    InFlight& front() { return ring[head]; }
    // Indexes wrap by comparison: a division per request would cost more
    // than the rest of the bookkeeping together.
    InFlight& at(size_t i) {
        const size_t slot = head + i;
        return ring[slot < ring.size() ? slot : slot - ring.size()];
    }
    void push(const InFlight& r) {
        at(count) = r;
        ++count;
    }
    InFlight pop() {
        InFlight r = ring[head];
        if (++head == ring.size())
            head = 0;
        --count;
        return r;
    }
};

LoadWorker::LoadWorker(SharedRunState& shared, uint32_t index, uint32_t firstConnection,
                       uint32_t connectionCount)
    : m_shared(shared)
    , m_spec(shared.spec)
    , m_protocol(*shared.spec.protocol)
    , m_index(index)
    , m_firstConnection(firstConnection)
    , m_connectionCount(connectionCount)
    , m_isStream(m_protocol.isStream())
    , m_keepAlive(m_protocol.keepAlive())
    , m_recorder(shared, m_protocol) {}

void LoadWorker::createConnections() {
    // Allocated here rather than by the thread that starts the run: the hot
    // buffers then come from this thread's malloc arena and its memory, not
    // from wherever the caller's heap happens to have room.
    // Not zeroed: recv writes what is read, and untouched pages stay unbacked.
    m_readBuffer.reset(new char[kReadBufferBytes]);
    m_connections.reserve(m_connectionCount);
    for (uint32_t i = 0; i < m_connectionCount; ++i) {
        auto c = std::make_unique<Connection>();
        c->index = m_firstConnection + i;
        c->session =
            m_protocol.newSession(c->index, m_spec.seed * 0x9E3779B97F4A7C15ull + c->index);
        c->ring.resize(m_isStream ? 1 : m_spec.pipeline);
        m_connections.push_back(std::move(c));
    }
    if (m_connectionCount == 1 && m_keepAlive && !m_isStream)
        m_soleConnection = m_connections.front().get();
}

LoadWorker::~LoadWorker() {
    for (auto& c : m_connections)
        if (c->fd >= 0)
            ::close(c->fd);
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool LoadWorker::claimRequest(int64_t now, bool& budgeted) {
    if (now >= m_shared.deadlineNs)
        return false;
    budgeted = false;
    if (m_spec.requests == 0 || now < m_shared.measureStartNs)
        return true; // timed runs and warm-up requests draw on no budget
    budgeted = drawBudget();
    return budgeted;
}

bool LoadWorker::drawBudget() {
    if (m_budgetExhausted)
        return false;
    if (m_shared.remaining.fetch_sub(1, std::memory_order_relaxed) > 0)
        return true;
    m_budgetExhausted = true;
    return false;
}

bool LoadWorker::counts(bool budgeted, int64_t now) {
    // The counting window: a request counts when it ends inside [measure
    // start, deadline], whenever it was claimed. In a counted run it must
    // also be one of the -n: one claimed in warm-up draws on the budget now,
    // and is not counted once the budget is spent, so that exactly -n count.
    if (now < m_shared.measureStartNs || now > m_shared.deadlineNs)
        return false;
    return m_spec.requests == 0 || budgeted || drawBudget();
}

void LoadWorker::openConnection(Connection& c, int64_t now) {
    c.session->resetConnection();
    c.out.clear();
    c.outOffset = 0;
    c.unsent = 0;
    c.responses = 0;
    c.wantWrite = true;
    c.connectCharged = false;
    c.blockingReads = false;
    c.fd = ::socket(m_spec.target.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
        failConnect(c, now, errno);
        return;
    }
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c.connectStartNs = monotonicNs();
    c.state = Connection::State::Connecting;
    if (::connect(c.fd, m_spec.target.data(), m_spec.target.length) != 0 && errno != EINPROGRESS) {
        failConnect(c, now, errno);
        return;
    }
    setWatched(c, true); // writable once connected
}

void LoadWorker::onConnected(Connection& c, int64_t now) {
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) {
        failConnect(c, now, error);
        return;
    }
    c.state = Connection::State::Open;
    c.everConnected = true;
    c.connectNs = now - c.connectStartNs;
    m_shared.everConnected.store(true, std::memory_order_relaxed);
    ++m_recorder.result().connectionsOpened;
    if (m_isStream) {
        streamWrite(c);
        return;
    }
    if (&c == m_soleConnection)
        makeReadsBlocking(c);
    setWriteInterest(c, false);
    issueRequests(c, now);
}

void LoadWorker::makeReadsBlocking(Connection& c) {
    // Every other send and recv passes MSG_DONTWAIT, so only awaitSoleResponse
    // blocks, and never longer than the loop's own wait.
    const int flags = ::fcntl(c.fd, F_GETFL);
    timeval wait{0, kWaitMs * 1000};
    c.blockingReads = flags >= 0 && ::fcntl(c.fd, F_SETFL, flags & ~O_NONBLOCK) == 0 &&
                      ::setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == 0;
}

void LoadWorker::failConnect(Connection& c, int64_t now, int error) {
    if (!c.everConnected && !m_shared.everConnected.load(std::memory_order_relaxed) &&
        ++m_slotsFailedBeforeAnyConnect >= m_connections.size()) {
        // Every connection of this worker failed before any ever succeeded: the
        // target is unreachable, and retrying would only count the same error.
        m_shared.unreachable.store(true, std::memory_order_relaxed);
        m_shared.stop.store(true, std::memory_order_relaxed);
    }
    // A failed connect is a failed request (as ab): the one it was opened for.
    bool budgeted = false;
    const bool claimed = m_isStream || takeClaimed(c, budgeted) || claimRequest(now, budgeted);
    if (claimed && (m_isStream ? m_measuring : counts(budgeted, now)))
        m_recorder.failure(ErrorClass::Connect,
                           "connect to " + m_spec.target.toString() + ": " + std::strerror(error));
    closeSocket(c);
    queueOpen(c, now + kReconnectBackoffNs);
}

bool LoadWorker::takeClaimed(Connection& c, bool& budgeted) {
    if (c.retries > 0) {
        // Which retry is sent first does not matter: each drew or did not draw
        // on the budget once, and that is all the count needs.
        --c.retries;
        --m_heldClaims;
        budgeted = c.retriesBudgeted > 0;
        if (budgeted)
            --c.retriesBudgeted;
        return true;
    }
    if (c.reserved) {
        c.reserved = false;
        --m_heldClaims;
        budgeted = c.reservedBudgeted;
        return true;
    }
    return false;
}

void LoadWorker::queueOpen(Connection& c, int64_t at) {
    c.reconnectAtNs = at;
    if (!c.queuedForOpen) {
        c.queuedForOpen = true;
        m_toOpen.push_back(&c);
    }
}

void LoadWorker::issueRequests(Connection& c, int64_t now) {
    const bool perConnection = !m_keepAlive;
    while (c.count < c.ring.size()) {
        if (perConnection && c.responses + c.count > 0)
            break; // one request per connection
        InFlight request;
        if (!takeClaimed(c, request.budgeted) && !claimRequest(now, request.budgeted))
            break;
        request.startNs = now; // until flush() reads the clock of its send
        if (!c.connectCharged) {
            // As ab: the first request on a connection carries its connect time.
            c.connectCharged = true;
            request.connectNs = c.connectNs;
            request.startNs = c.connectStartNs;
            request.startsAtSend = false;
        }
        const size_t before = c.out.size();
        c.session->appendRequest(c.out);
        request.requestBytes = uint32_t(c.out.size() - before);
        c.push(request);
        ++c.unsent;
        ++m_inFlight;
    }
    if (c.count == 0 && c.out.empty()) {
        // Nothing left to send: the budget is spent or the deadline passed.
        dropConnection(c, now, false);
        return;
    }
    flush(c, now);
}

void LoadWorker::flush(Connection& c, int64_t now) {
    // The requests start when the send that writes their last byte begins (as
    // wrk: before the write), so no request starts after the server has it.
    int64_t sent = now;
    while (c.outOffset < c.out.size()) {
        sent = monotonicNs();
        const ssize_t n = ::send(c.fd, c.out.data() + c.outOffset, c.out.size() - c.outOffset,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c.outOffset += size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            setWriteInterest(c, true);
            return;
        }
        const bool reusedConnection = c.responses > 0;
        if (reusedConnection) {
            // The server closed an idle keep-alive connection as we reused it.
            dropConnection(c, now, true);
        } else {
            failHead(c, ErrorClass::Write, now, std::string("send: ") + std::strerror(errno));
        }
        return;
    }
    for (size_t i = c.count - c.unsent; i < c.count; ++i) {
        InFlight& request = c.at(i);
        request.sentNs = sent;
        if (request.startsAtSend)
            request.startNs = sent;
    }
    c.unsent = 0;
    c.out.clear();
    c.outOffset = 0;
    setWriteInterest(c, false);
}

void LoadWorker::setWriteInterest(Connection& c, bool wanted) {
    if (c.wantWrite == wanted || c.fd < 0)
        return;
    c.wantWrite = wanted;
    // An unwatched connection gets the new events when setWatched adds it back.
    if (c.watched)
        controlEpoll(c, EPOLL_CTL_MOD);
}

void LoadWorker::setWatched(Connection& c, bool watched) {
    if (c.watched != watched && c.fd >= 0 &&
        controlEpoll(c, watched ? EPOLL_CTL_ADD : EPOLL_CTL_DEL))
        c.watched = watched;
}

bool LoadWorker::controlEpoll(Connection& c, int operation) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (c.wantWrite ? EPOLLOUT : 0u);
    ev.data.ptr = &c;
    return ::epoll_ctl(m_epoll, operation, c.fd, &ev) == 0;
}

void LoadWorker::closeSocket(Connection& c) {
    if (c.fd >= 0) {
        ::close(c.fd); // also removes it from the epoll set
        c.fd = -1;
        c.watched = false;
    }
    c.state = Connection::State::Closed;
}

void LoadWorker::onReadable(Connection& c) {
    for (;;) {
        const ssize_t n = ::recv(c.fd, m_readBuffer.get(), kReadBufferBytes, MSG_DONTWAIT);
        const int error = errno;
        if (n < 0 && error == EINTR)
            continue;
        // The clock of this read: the completion and first-byte time of what it holds.
        if (!onReceived(c, n, error, monotonicNs()) || size_t(n) < kReadBufferBytes)
            return; // a short read on a stream socket means nothing more is queued
    }
}

bool LoadWorker::onReceived(Connection& c, ssize_t n, int error, int64_t now) {
    if (n == 0) {
        onEndOfStream(c, now, false);
        return false;
    }
    if (n < 0) {
        if (error != EAGAIN && error != EWOULDBLOCK && error != EINTR)
            onEndOfStream(c, now, true);
        return false;
    }
    if (m_isStream) {
        // A sink has nothing to say; whatever arrives is discarded.
        if (m_measuring)
            m_recorder.result().bytesTotal += uint64_t(n);
        return true;
    }
    std::string_view data(m_readBuffer.get(), size_t(n));
    // The peer sent all of these bytes before it could have seen a request
    // issued while they are parsed, so they answer only the requests
    // outstanding now; more is a peer sending more than it owes, which
    // would otherwise complete the next requests without their responses.
    size_t answerable = c.count;
    while (!data.empty()) {
        if (c.count == 0 || answerable == 0) {
            failHead(c, ErrorClass::Exception, now,
                     c.count == 0 ? "data received with no request outstanding"
                                  : "the peer sent more than the responses it owed");
            return false;
        }
        InFlight& head = c.front();
        if (head.firstByteNs == 0)
            head.firstByteNs = now;
        const FeedResult r = c.session->feed(data);
        if (r.status != FeedResult::Status::Complete) {
            head.bytesReceived += data.size();
            if (r.status == FeedResult::Status::NeedMore)
                break;
            failHead(c, ErrorClass::Exception, now, c.session->lastError());
            return false;
        }
        head.bytesReceived += r.consumed;
        data.remove_prefix(r.consumed);
        --answerable;
        const int fd = c.fd;
        completeHead(c, r.info, now);
        if (c.fd != fd)
            return false; // the connection was closed or replaced
    }
    return true;
}

bool LoadWorker::awaitingSoleResponse() const {
    const Connection* c = m_soleConnection;
    return c && c->blockingReads && c->state == Connection::State::Open && c->count > 0 &&
           !c->wantWrite && m_toOpen.empty() &&
           m_waitChooser.method() == WaitMethodChooser::Method::Recv;
}

int64_t LoadWorker::awaitSoleResponse() {
    // One blocking recv instead of epoll_wait then recv: with a single
    // connection there is nothing else to wait for, and on a CPU shared with
    // the server the saved system call is a tenth of a transaction. Used
    // while m_waitChooser finds it the faster of the two.
    Connection& c = *m_soleConnection;
    const ssize_t n = ::recv(c.fd, m_readBuffer.get(), kReadBufferBytes, 0);
    const int error = errno;
    const int64_t now = monotonicNs();
    if (onReceived(c, n, error, now) && size_t(n) == kReadBufferBytes)
        onReadable(c);
    return now;
}

void LoadWorker::onEndOfStream(Connection& c, int64_t now, bool reset) {
    if (c.draining) {
        endDrain(c, now); // the sink read everything and closed
        return;
    }
    if (c.count > 0 && !reset) {
        const FeedResult r = c.session->finishAtEof();
        if (r.status == FeedResult::Status::Complete) {
            completeHead(c, r.info, now);
            if (c.state != Connection::State::Open)
                return;
        } else if (r.status == FeedResult::Status::Malformed) {
            failHead(c, ErrorClass::Receive, now, c.session->lastError());
            return;
        }
    }
    if (c.count > 0 && c.front().firstByteNs == 0 && c.responses > 0) {
        // The server closed a kept-alive connection before answering the next
        // request: not a failure of that request (as ab), send it again.
        dropConnection(c, now, true);
        return;
    }
    if (c.count > 0) {
        failHead(c, ErrorClass::Receive, now,
                 reset ? "connection reset by peer" : "connection closed before a response");
        return;
    }
    dropConnection(c, now, false);
}

void LoadWorker::completeHead(Connection& c, const ResponseInfo& info, int64_t now) {
    const InFlight request = c.pop();
    --m_inFlight;
    ++c.responses;
    if (&c == m_soleConnection)
        m_waitChooser.transactionCompleted(now);
    const bool reuse = info.keepAlive && m_keepAlive;
    if (reuse) {
        // The next request goes out before the bookkeeping of this one, so the
        // server works on it while the counts and histograms are updated.
        issueRequests(c, now);
    }
    if (c.responses == 1 && m_serverSoftware.empty()) // a server names itself on every response
        m_serverSoftware = std::string(c.session->serverSoftware());
    if (counts(request.budgeted, now))
        m_recorder.response(request, info, now, *c.session);
    if (!reuse)
        dropConnection(c, now, true);
}

void LoadWorker::failHead(Connection& c, ErrorClass error, int64_t now, std::string_view message) {
    if (c.count > 0) {
        const InFlight request = c.pop();
        --m_inFlight;
        if (counts(request.budgeted, now))
            m_recorder.failure(error, message, &request);
    }
    dropConnection(c, now, true);
}

void LoadWorker::dropConnection(Connection& c, int64_t now, bool retryInFlight) {
    if (retryInFlight && c.count > 0) {
        // Requests already claimed are sent again on the next connection.
        for (size_t i = 0; i < c.count; ++i)
            c.retriesBudgeted += c.at(i).budgeted ? 1 : 0;
        c.retries += uint32_t(c.count);
        m_heldClaims += c.count;
    }
    if (m_isStream && m_measuring && c.state == Connection::State::Open) {
        // Bytes still queued when the peer went away were never delivered.
        uint64_t& sent = m_recorder.result().bytesSent;
        sent -= std::min(sent, unacknowledgedBytes(c.fd));
    }
    m_inFlight -= c.count;
    c.count = 0;
    c.head = 0;
    c.unsent = 0;
    closeSocket(c);
    queueOpen(c, now); // right away, from the loop
}

void LoadWorker::streamWrite(Connection& c) {
    if (c.draining)
        return;
    const int64_t now = monotonicNs();
    // Written inside the measured stretch; what is still queued at its end is
    // delivered before the sink closes (drainStreams), so all of it counts.
    const bool counted = now >= m_shared.measureStartNs && now < m_shared.deadlineNs;
    const std::string_view chunk = m_protocol.streamChunk();
    for (int i = 0; i < 64; ++i) { // bounded, so one connection cannot starve the others
        const ssize_t n = ::send(c.fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            if (counted)
                m_recorder.result().bytesSent += uint64_t(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (m_measuring)
            m_recorder.failure(ErrorClass::Write, std::string("send: ") + std::strerror(errno));
        dropConnection(c, now, false);
        return;
    }
}

uint64_t LoadWorker::unacknowledgedBytes(int fd) {
    int queued = 0;
    return fd >= 0 && ::ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0 ? uint64_t(queued) : 0;
}

bool LoadWorker::drainStreams(int64_t now) {
    if (!m_draining) {
        // As netperf TCP_STREAM: the bytes written count once the sink has
        // read them, which it has when it closes after our end of stream.
        m_draining = true;
        m_drainUntilNs = now + m_spec.requestTimeout.count();
        for (auto& owned : m_connections) {
            Connection& c = *owned;
            if (c.state == Connection::State::Open && ::shutdown(c.fd, SHUT_WR) == 0) {
                c.draining = true;
                ++m_streamsDraining;
                setWriteInterest(c, false);
            } else {
                closeSocket(c);
            }
        }
        m_toOpen.clear();
    }
    if (m_streamsDraining == 0)
        return true;
    const bool givingUp = now >= m_drainUntilNs;
    for (auto& owned : m_connections) {
        Connection& c = *owned;
        if (!c.draining)
            continue;
        const uint64_t queued = unacknowledgedBytes(c.fd);
        if (queued == 0 && c.acknowledgedNs == 0)
            c.acknowledgedNs = now;
        if (givingUp) {
            // A sink that never closes: delivered is what its kernel
            // acknowledged, timed to when it had acknowledged the last byte.
            uint64_t& sent = m_recorder.result().bytesSent;
            sent -= std::min(sent, queued);
            endDrain(c, c.acknowledgedNs ? c.acknowledgedNs : now);
        }
    }
    return m_streamsDraining == 0;
}

void LoadWorker::endDrain(Connection& c, int64_t deliveredNs) {
    c.draining = false;
    --m_streamsDraining;
    m_recorder.streamDelivered(deliveredNs);
    closeSocket(c);
}

void LoadWorker::checkTimeouts(int64_t now) {
    for (auto& owned : m_connections) {
        Connection& c = *owned;
        if (c.state == Connection::State::Connecting &&
            now - c.connectStartNs > m_spec.connectTimeout.count()) {
            failConnect(c, now, ETIMEDOUT);
        } else if (c.state == Connection::State::Open && c.count > 0 &&
                   now - c.front().startNs > m_spec.requestTimeout.count()) {
            failHead(c, ErrorClass::Timeout, now, "no response within the request timeout");
        }
    }
}

bool LoadWorker::finished(int64_t now) {
    if (m_shared.stop.load(std::memory_order_relaxed)) {
        if (m_isStream && m_measuring) {
            // Cancelled: what is still queued was not delivered.
            uint64_t& sent = m_recorder.result().bytesSent;
            for (auto& c : m_connections)
                if (c->state == Connection::State::Open)
                    sent -= std::min(sent, unacknowledgedBytes(c->fd));
        }
        return true;
    }
    if (now >= m_shared.deadlineNs)
        return !m_isStream || drainStreams(now);
    return m_spec.requests > 0 && m_budgetExhausted && m_inFlight == 0 && m_heldClaims == 0;
}

void LoadWorker::tick(int64_t now) {
    if (!m_measuring && now >= m_shared.measureStartNs) {
        m_measuring = true;
        m_cpuAtMeasureStartNs = threadCpuNs();
        if (m_isStream) {
            // Written in warm-up and still queued: delivered inside the measured stretch.
            for (auto& c : m_connections)
                if (c->state == Connection::State::Open)
                    m_recorder.result().bytesSent += unacknowledgedBytes(c->fd);
        }
    }
    if (now >= m_nextTimeoutScanNs) {
        m_nextTimeoutScanNs = now + kTimeoutScanPeriodNs;
        checkTimeouts(now);
    }
    if (!m_toOpen.empty())
        openQueued(now);
    if (now >= m_nextPublishNs) {
        m_nextPublishNs = now + kPublishPeriodNs;
        m_recorder.publish();
    }
}

void LoadWorker::openQueued(int64_t now) {
    // Swap first: a connect that fails at once queues its connection again.
    std::vector<Connection*> due;
    due.swap(m_toOpen);
    const bool stopping = m_shared.stop.load(std::memory_order_relaxed);
    for (Connection* c : due) {
        c->queuedForOpen = false;
        if (stopping || now >= m_shared.deadlineNs)
            continue;
        if (now < c->reconnectAtNs) {
            queueOpen(*c, c->reconnectAtNs);
            continue;
        }
        // A connection opens only for a request it already holds, so a run
        // never ends with connections that sent nothing.
        if (!m_isStream && c->retries == 0 && !c->reserved) {
            if (!claimRequest(now, c->reservedBudgeted))
                continue;
            c->reserved = true;
            ++m_heldClaims;
        }
        openConnection(*c, now);
    }
}

void LoadWorker::run() {
    // The registers were copied from the thread that started the run, which
    // may have left the upper vector halves in use (see vector_state.h).
    clearUpperVectorState();
    if (!m_spec.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(m_spec.cpus[m_index % m_spec.cpus.size()], &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0) {
        m_recorder.failure(ErrorClass::Exception, std::string("epoll: ") + std::strerror(errno));
        return;
    }
    // Before the first tick takes the CPU baseline: allocating would
    // otherwise show as client CPU load in a short run.
    m_recorder.reserveHistograms();
    createConnections();
    int64_t now = monotonicNs();
    for (auto& c : m_connections)
        queueOpen(*c, now);
    tick(now);
    epoll_event events[kMaxEvents];
    while (!finished(now)) {
        if (awaitingSoleResponse()) {
            // Out of the epoll set while it waits in recv: a watched socket
            // runs epoll's wake-up callback for every packet the server sends,
            // which cost 1-2 % of a one-connection TCP_RR rate on one CPU.
            setWatched(*m_soleConnection, false);
            now = awaitSoleResponse();
            tick(now);
            continue;
        }
        if (m_soleConnection)
            setWatched(*m_soleConnection, true); // no-op unless it left the set above
        const int n = ::epoll_wait(m_epoll, events, kMaxEvents, kWaitMs);
        now = monotonicNs();
        for (int i = 0; i < n; ++i) {
            auto& c = *static_cast<Connection*>(events[i].data.ptr);
            if (c.fd < 0)
                continue;
            const uint32_t flags = events[i].events;
            if (c.state == Connection::State::Connecting) {
                if (flags & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                    onConnected(c, monotonicNs());
                continue;
            }
            if (flags & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                onReadable(c);
            if (c.fd >= 0 && (flags & EPOLLOUT)) {
                if (m_isStream)
                    streamWrite(c);
                else
                    flush(c, now);
            }
        }
        tick(now);
    }
    m_recorder.finish();
    m_recorder.result().threads = 1;
    m_recorder.result().threadCpus.push_back(sched_getcpu());
    m_recorder.result().serverSoftware = m_serverSoftware;
    if (m_measuring)
        m_recorder.result().clientCpuSeconds = double(threadCpuNs() - m_cpuAtMeasureStartNs) / 1e9;
}

} // namespace loadscope::engine::detail
