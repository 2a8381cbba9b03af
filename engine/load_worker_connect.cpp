// LoadWorker: opening connections, failing a connect, dropping a connection.
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::engine::detail {

void LoadWorker::openConnection(Connection& c, int64_t now) {
    c.session->resetConnection();
    c.out.clear();
    c.unsent = 0;
    c.responses = 0;
    c.wantWrite = true;
    c.connectCharged = false;
    c.blockingReads = false;
    if (c.datagram) {
        openDatagramSocket(c, now);
        return;
    }
    c.fd = ::socket(m_spec.target.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
        failConnect(c, now, errno);
        return;
    }
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // Each read then carries the time its data arrived (see m_stampedReceives).
    c.stampedReceives =
        m_stampedReceives && ::setsockopt(c.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
    m_stampedReceives = c.stampedReceives;
    c.connectStartNs = readClock();
    setState(c, Connection::State::Connecting);
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
    setState(c, Connection::State::Open);
    c.everConnected = true;
    c.connectNs = now - c.connectStartNs;
    m_shared.everConnected.store(true, std::memory_order_relaxed);
    ++m_recorder.result().connectionsOpened;
    if (m_isStream) {
        streamWrite(c);
        return;
    }
    c.tlsNs = 0;
    if (m_tls) {
        startHandshake(c, now);
        return;
    }
    startRequests(c, now);
}

void LoadWorker::startRequests(Connection& c, int64_t now) {
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
    const std::string message =
        "connect to " + m_spec.target.toString() + ": " + std::strerror(error);
    if (!c.everConnected && !m_shared.everConnected.load(std::memory_order_relaxed) &&
        ++m_slotsFailedBeforeAnyConnect >= m_connections.size()) {
        // Every connection of this worker failed before any ever succeeded: the
        // target is unreachable, and retrying would only count the same error.
        m_shared.unreachable.store(true, std::memory_order_relaxed);
        m_shared.stop.store(true, std::memory_order_relaxed);
        // At a fixed rate kept-alive connections open before any request is
        // due, so none may be counted below: the run still says why it ended.
        m_recorder.keepFirstError(message);
    }
    // A failed connect is a failed request (as ab): the one it was opened for.
    InFlight request;
    const bool claimed =
        m_isStream || takeClaimed(c, request) || claimRequest(now, request) == Claim::Claimed;
    if (claimed && (m_isStream ? m_measuring : counts(request.budgeted, now)))
        m_recorder.failure(ErrorClass::Connect, message);
    closeSocket(c);
    queueOpen(c, now + kReconnectBackoffNs);
}

void LoadWorker::queueOpen(Connection& c, int64_t at) {
    c.reconnectAtNs = at;
    if (!c.queuedForOpen) {
        c.queuedForOpen = true;
        m_toOpen.push_back(&c);
    }
}

void LoadWorker::closeSocket(Connection& c) {
    c.tls.reset(); // before its socket closes
    c.unread = false;
    c.unreadPeerClosing = false;
    c.streamsRefusedSinceNs = 0;
    if (c.fd >= 0) {
        ::close(c.fd); // also removes it from the epoll set
        c.fd = -1;
        c.watched = false;
    }
    setState(c, Connection::State::Closed);
}

void LoadWorker::dropConnection(Connection& c, int64_t now, bool retryInFlight) {
    if (retryInFlight && c.count > 0) {
        // Requests already claimed are sent again on the next connection.
        for (size_t i = 0; i < c.count; ++i) {
            c.retriesBudgeted += c.at(i).budgeted ? 1 : 0;
            if (m_schedule)
                c.retryIntended.push_back(c.at(i).intendedNs);
        }
        c.retries += uint32_t(c.count);
        m_heldClaims += c.count;
    }
    if (m_isStream && m_measuring && c.state == Connection::State::Open && !c.datagram) {
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
        // With the budget spent a connection has nothing to send but its own retries. A
        // kept-alive one at a fixed rate, opened without a claim, would otherwise find none,
        // close and open again, a connect each time, until the run's last answers came.
        if (c->retries == 0 && !c->reserved && budgetSpent())
            continue;
        // A connection opens only for a request it already holds, so a run
        // never ends with connections that sent nothing. Kept-alive ones at a
        // fixed rate open at once and wait for the schedule (as wrk2's), so
        // that no request pays for a connect it did not need.
        if (!m_isStream && c->retries == 0 && !c->reserved && !(m_schedule && m_keepAlive)) {
            InFlight request;
            const Claim claim = claimRequest(now, request);
            if (claim == Claim::NotYet)
                queueOpen(*c, m_schedule->nextNs());
            if (claim != Claim::Claimed)
                continue;
            c->reserved = true;
            c->reservedBudgeted = request.budgeted;
            c->reservedIntendedNs = request.intendedNs;
            ++m_heldClaims;
        }
        openConnection(*c, now);
    }
}

} // namespace loadscope::engine::detail
