// LoadWorker: the read path: receiving on a connection, feeding the
// responses to its session, completing or failing the request at its head.
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"
#include "engine/stamped_receive.h"

#include <algorithm>
#include <cerrno>
#include <sched.h>
#include <sys/socket.h>
#include <utility>

namespace loadscope::engine::detail {

int64_t LoadWorker::arrivalNs(Connection& c, int64_t now, int64_t realNow, int64_t arrivedRealNs) {
    // The stamp's age on its own clock, at the loop's `now` (realtimeAt). A
    // stamp after `now` (a wall clock stepped back) is the response read at
    // once; nothing answers before the oldest request outstanding went out.
    const int64_t age = realNow - arrivedRealNs;
    const int64_t earliest = c.count > 0 ? std::min(c.front().sentNs, now) : now;
    return std::clamp(now - age, earliest, now);
}

LoadWorker::Received LoadWorker::receive(Connection& c, int flags, size_t length) {
    int64_t arrivedRealNs = 0;
    Received r;
    if (c.tls) {
        r.n = c.tls->readReady(m_readBuffer.get(), kReadBufferBytes);
        if (c.stampedReceives && r.n > 0)
            arrivedRealNs = c.tls->arrivalRealNs();
    } else {
        // An uncopied read names the buffer as large as its length; nothing is written to it.
        char* into = (flags & MSG_TRUNC) ? m_discardBuffer.get() : m_readBuffer.get();
        r.n = c.stampedReceives ? receiveStamped(c.fd, into, length, flags, arrivedRealNs)
                                : ::recv(c.fd, into, length, flags);
    }
    r.error = errno;
    const int64_t now = readClock();
    r.atNs = arrivedRealNs > 0 ? arrivalNs(c, now, realtimeAt(now), arrivedRealNs) : now;
    return r;
}

int64_t LoadWorker::realtimeAt(int64_t now) {
    // The wall clock at `now` from an offset read every millisecond, not a read per response:
    // a clock read costs this VM about 80 ns, 1-2 % of a one-connection transaction. The
    // offset moves with the wall clock's slew, nanoseconds a millisecond; a step lands in
    // arrivalNs' clamp.
    if (now - m_realtimeOffsetAtNs >= kRealtimeOffsetRefreshNs) {
        const int64_t before = monotonicNs();
        const int64_t real = realtimeNs();
        const int64_t after = monotonicNs();
        // Preempted between the reads, the offset would be off by the pause: read it again
        // at the next response, keeping the last one meanwhile.
        if (after - before < kRealtimeOffsetReadNs || m_realtimeOffsetAtNs == kNever) {
            m_realtimeMinusMonotonicNs = real - (before + (after - before) / 2);
            m_realtimeOffsetAtNs = after;
        }
    }
    return now + m_realtimeMinusMonotonicNs;
}

uint64_t LoadWorker::discardable(const Connection& c) const {
    // A body shorter than this costs less to copy than a read of its own.
    constexpr uint64_t kDiscardFromBytes = kReadBufferBytes / 4;
    if (c.tls || c.mux || c.count == 0)
        return 0;
    const uint64_t skippable = c.session->skippableBytes();
    return skippable < kDiscardFromBytes ? 0 : std::min<uint64_t>(skippable, kDiscardBytes);
}

void LoadWorker::onReadable(Connection& c, bool peerClosing) {
    if (c.datagram) {
        // A datagram a read: read until the socket is dry (udp-rr's are edge-triggered), or
        // kReadsPerPass times, the rest left to readDeferred as for a stream of bytes, so that
        // a flood of answers cannot hold the loop from its deadlines.
        for (int reads = 0;; ++reads) {
            if (reads == kReadsPerPass) {
                deferRead(c, peerClosing);
                return;
            }
            const Received r = receive(c, MSG_DONTWAIT, kReadBufferBytes);
            if (!(r.n < 0 && r.error == EINTR) && !onDatagramReceived(c, r.n, r.error, r.atNs))
                return;
        }
    }
    for (int reads = 0;; ++reads) {
        if (reads == kReadsPerPass) {
            deferRead(c, peerClosing);
            return;
        }
        // Body bytes the session only counts are taken from the socket without
        // a copy: the copy to user space was most of a large response's cost.
        // Such a read is one of the pass's reads as any other.
        if (const uint64_t length = discardable(c)) {
            const Received r = receive(c, MSG_DONTWAIT | MSG_TRUNC, size_t(length));
            if (r.n < 0 && r.error == EINTR)
                continue;
            if (!onDiscarded(c, r.n, r.error, r.atNs))
                return;
            if (uint64_t(r.n) < length && !peerClosing)
                return;
            continue;
        }
        const Received r = receive(c, MSG_DONTWAIT, kReadBufferBytes);
        if (r.n < 0 && r.error == EINTR)
            continue;
        if (!onReceived(c, r.n, r.error, r.atNs))
            return;
        // A short read on a stream socket means no byte is queued. A close or
        // an error the peer already sent is still to be read, and an
        // edge-triggered socket reports it no second time. A short TLS read
        // may leave an error or the end of the stream for the next call, so
        // it reads on until OpenSSL wants the socket, which after the BIO
        // found the socket dry (tls_socket_bio.h) costs no system call.
        if (size_t(r.n) < kReadBufferBytes && !peerClosing && !c.tls)
            return;
    }
}

void LoadWorker::deferRead(Connection& c, bool peerClosing) {
    // A stream's sockets are level-triggered: epoll reports them again.
    if (m_isStream)
        return;
    c.unreadPeerClosing = c.unreadPeerClosing || peerClosing;
    if (!c.unread) {
        c.unread = true;
        m_unread.push_back(&c);
    }
}

void LoadWorker::readDeferred() {
    m_unreadBatch.clear();
    m_unreadBatch.swap(m_unread);
    for (Connection* c : m_unreadBatch) {
        // Closed since (closeSocket cleared the mark), or listed twice.
        if (!c->unread)
            continue;
        c->unread = false;
        const bool peerClosing = std::exchange(c->unreadPeerClosing, false);
        if (c->fd < 0 || c->state != Connection::State::Open)
            continue;
        if (c->tls)
            c->tls->expectInput(peerClosing);
        onReadable(*c, peerClosing);
    }
}

bool LoadWorker::onReceived(Connection& c, ssize_t n, int error, int64_t now) {
    if (c.datagram)
        return onDatagramReceived(c, n, error, now);
    if (n == 0) {
        onEndOfStream(c, now, false);
        return false;
    }
    if (n < 0) {
        if (error == EPROTO && c.tls)
            failHead(c, ErrorClass::Tls, now, c.tls->failure());
        else if (error != EAGAIN && error != EWOULDBLOCK && error != EINTR)
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
    if (c.mux)
        return receiveStreams(c, data, now);
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

bool LoadWorker::onDiscarded(Connection& c, ssize_t n, int error, int64_t now) {
    if (n <= 0)
        return onReceived(c, n, error, now); // the end of the stream or an error, as any read
    InFlight& head = c.front();
    if (head.firstByteNs == 0)
        head.firstByteNs = now;
    head.bytesReceived += uint64_t(n);
    const FeedResult r = c.session->skip(uint64_t(n));
    if (r.status != FeedResult::Status::Complete)
        return true;
    const int fd = c.fd;
    completeHead(c, r.info, now);
    return c.fd == fd; // false: the connection was closed or replaced
}

bool LoadWorker::awaitingSoleResponse() const {
    const Connection* c = m_soleConnection;
    return c && c->blockingReads && c->state == Connection::State::Open && c->count > 0 &&
           !c->wantWrite && !c->unread && m_toOpen.empty() &&
           m_waitChooser.method() == WaitMethodChooser::Method::Recv;
}

int64_t LoadWorker::awaitSoleResponse() {
    // One blocking recv instead of epoll_wait then recv: with a single
    // connection there is nothing else to wait for, and on a CPU shared with
    // the server the saved system call is a tenth of a transaction. Used
    // while m_waitChooser finds it the faster of the two.
    Connection& c = *m_soleConnection;
    const Received r = receive(c, 0, kReadBufferBytes);
    const int64_t woke = m_clockNs;
    // A datagram socket's next datagram waits for the next blocking read: a
    // read to find it empty would cost a system call per transaction.
    if (onReceived(c, r.n, r.error, r.atNs) && !c.datagram && size_t(r.n) == kReadBufferBytes)
        onReadable(c, false);
    return woke;
}

void LoadWorker::soleTransactionCompleted(Connection& c, int64_t now) {
    m_waitChooser.transactionCompleted(now);
    if (!m_waitChooser.probeStarting())
        return;
    // The CPU that handled the answer's arrival is the one whose softirq wakes this thread:
    // the server's own, over loopback; the interrupt's, from a network card.
    int incoming = -1;
    socklen_t length = sizeof incoming;
    if (::getsockopt(c.fd, SOL_SOCKET, SO_INCOMING_CPU, &incoming, &length) == 0 && incoming >= 0 &&
        incoming == sched_getcpu())
        m_waitChooser.keepRecvWithoutProbe();
}

void LoadWorker::onEndOfStream(Connection& c, int64_t now, bool reset) {
    if (c.draining) {
        // A sink that read everything closes with a FIN; one that closed with
        // bytes unread resets, and what it had not acknowledged is lost.
        uint64_t& sent = m_recorder.result().bytesSent;
        sent -= std::min(sent, unacknowledgedBytes(c.fd));
        endDrain(c, now);
        return;
    }
    if (c.mux) {
        onStreamsEnd(c, now, reset);
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
    m_coalescer.onResponse(now - request.sentNs);
    if (&c == m_soleConnection)
        soleTransactionCompleted(c, now);
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
            m_recorder.failure(error, message);
    }
    dropConnection(c, now, true);
}

} // namespace loadscope::engine::detail
