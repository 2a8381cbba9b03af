// LoadWorker: UDP. A connection is a connected datagram socket; each request
// (udp-rr) or message (udp-stream) is one datagram, stamped with its sequence
// (udp_datagram.h) before it is sent.
//
// udp-rr's answers are matched by the sequence they carry, so that one may
// come in any order: an answer to an outstanding request completes it (out of
// order when a later request's answer came first); a second answer to it is
// a duplicate, an answer after its timeout is late, one to no request sent is
// stray: counted, never completing another request. Without room for the
// sequence (a request or answer under 8 bytes) answers are taken in order.
// A request unanswered within the request timeout is lost (ErrorClass::Lost)
// and not sent again; its connection goes on with the next request.
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"
#include "engine/udp_datagram.h"

#include <cerrno>
#include <cstring>
#include <random>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::engine::detail {

namespace {

// The sink's count is asked this often at the end of a udp-stream, this many
// times, before its figures are given up as unknown (a sink that is not
// Loadscope's never answers). Each asks the same question with the same
// nonce: behind a slow relay the first answer may come after the second query.
constexpr int64_t kCountQueryAgainNs = 100'000'000;
constexpr int kCountQueries = 10;

bool wouldBlock(int error) {
    return error == EAGAIN || error == EWOULDBLOCK;
}

} // namespace

uint32_t LoadWorker::newStreamId() {
    if (m_streamIdState == 0)
        m_streamIdState = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}() ^
                          (m_spec.seed + m_index);
    // splitmix64: distinct ids for the streams of one worker, unrelated to another run's.
    uint64_t z = (m_streamIdState += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return uint32_t(z ^ (z >> 31));
}

void LoadWorker::openDatagramSocket(Connection& c, int64_t now) {
    DatagramState& d = *c.datagram;
    c.fd = ::socket(m_spec.target.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
        failConnect(c, now, errno);
        return;
    }
    const int one = 1;
    c.stampedReceives =
        m_stampedReceives && ::setsockopt(c.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
    m_stampedReceives = c.stampedReceives;
    c.connectStartNs = readClock();
    // A datagram socket's connect sends nothing: it fixes the peer, so that
    // reads take only the peer's datagrams and a refused port (ICMP) comes
    // back as ECONNREFUSED.
    if (::connect(c.fd, m_spec.target.data(), m_spec.target.length) != 0) {
        failConnect(c, now, errno);
        return;
    }
    setState(c, Connection::State::Open);
    c.connectNs = 0;
    c.connectCharged = true; // nothing to charge: no handshake went before the first request
    c.tlsNs = 0;
    ++m_recorder.result().connectionsOpened;
    // A new socket is a new sequence space: nothing from the last one can answer it.
    d.nextSequence = 0;
    d.answeredAny = false;
    d.highestAnswered = 0;
    std::fill(d.history.begin(), d.history.end(), SequenceFate::Unknown);
    setWatched(c, true);
    if (m_isStream) {
        // A fresh stream id for the warm-up (if any); the measured stretch gets its own.
        d.streamId = newStreamId();
        d.measuredStream = false;
        sendCountQuery(c, now, false, true); // a Loadscope sink answers: the peer is there
        streamDatagrams(c);
        return;
    }
    startRequests(c, now);
}

void LoadWorker::issueDatagrams(Connection& c, int64_t now) {
    Claim claim = Claim::Claimed;
    while (c.count < c.ring.size()) {
        InFlight request;
        if (!takeClaimed(c, request) && (claim = claimRequest(now, request)) != Claim::Claimed)
            break;
        request.startNs = now; // until flushDatagrams reads the clock of its send
        c.push(request);
        ++c.unsent;
        ++m_inFlight;
    }
    if (claim == Claim::NotYet)
        waitForSchedule(c);
    if (c.count == 0) {
        if (claim != Claim::NotYet)
            dropConnection(c, now, false); // the budget is spent or the deadline passed
        return;
    }
    flushDatagrams(c);
}

void LoadWorker::flushDatagrams(Connection& c) {
    DatagramState& d = *c.datagram;
    bool failedSend = false;
    while (c.unsent > 0) {
        const size_t index = c.count - c.unsent;
        const uint64_t sequence = d.nextSequence;
        if (m_datagrams->sequenced)
            udp::putU64(d.payload.data(), sequence);
        const int64_t sent = readClock();
        const ssize_t n =
            ::send(c.fd, d.payload.data(), d.payload.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        const int error = n < 0 ? errno : 0;
        if (error == EINTR)
            continue;
        if (wouldBlock(error)) {
            setWriteInterest(c, true);
            return;
        }
        // A datagram a local filter dropped (EPERM: nftables' drop on output) or the kernel
        // had no buffer for (ENOBUFS) is lost on its way, as one a router drops: it stays
        // outstanding and is counted lost at its timeout, and the socket goes on.
        if (n >= 0 || error == EPERM || error == ENOBUFS) {
            InFlight& request = c.at(index);
            request.sentNs = sent;
            if (request.startsAtSend)
                request.startNs = sent;
            request.stream = int32_t(uint32_t(sequence));
            request.requestBytes = uint32_t(n >= 0 ? n : ssize_t(d.payload.size()));
            if (!d.history.empty())
                d.fate(sequence) = SequenceFate::Outstanding;
            ++d.nextSequence;
            --c.unsent;
            continue;
        }
        // Not sent: the request fails here, the refused port as a connect would.
        const InFlight request = c.removeAt(index);
        --m_inFlight;
        failedSend = true;
        if (error == ECONNREFUSED) {
            if (counts(request.budgeted, sent))
                m_recorder.failure(ErrorClass::Connect, "connect to " + m_spec.target.toString() +
                                                            ": " + std::strerror(error));
            datagramRefused(c, sent);
            if (c.fd < 0 || m_shared.stop.load(std::memory_order_relaxed))
                return;
            continue;
        }
        if (counts(request.budgeted, sent))
            m_recorder.failure(ErrorClass::Write, std::string("send: ") + std::strerror(error));
    }
    setWriteInterest(c, false);
    // Nothing outstanding after a failed send: nothing would bring the next request. The
    // socket starts again from the loop, as a TCP connection does after a failed write.
    if (failedSend && c.count == 0)
        dropConnection(c, m_clockNs, false);
}

bool LoadWorker::onDatagramReceived(Connection& c, ssize_t n, int error, int64_t now) {
    if (n < 0) {
        if (error == ECONNREFUSED) {
            // An earlier datagram met a closed port; the socket goes on.
            if (!m_isStream && c.count > c.unsent) {
                const InFlight request = c.pop(); // the oldest sent: the likeliest refused
                --m_inFlight;
                if (!c.datagram->history.empty())
                    c.datagram->fate(c.datagram->sequenceOf(uint32_t(request.stream))) =
                        SequenceFate::Lost;
                if (counts(request.budgeted, now))
                    m_recorder.failure(ErrorClass::Connect, "connect to " +
                                                                m_spec.target.toString() + ": " +
                                                                std::strerror(error));
            } else if (m_isStream && m_measuring) {
                m_recorder.failure(ErrorClass::Connect, "connect to " + m_spec.target.toString() +
                                                            ": " + std::strerror(error));
            }
            datagramRefused(c, now);
            return c.fd >= 0;
        }
        return false; // drained (EAGAIN), or a read error the next read will show again
    }
    const std::string_view data(m_readBuffer.get(), size_t(n));
    if (m_isStream)
        onCountAnswer(c, data, now);
    else
        onAnswer(c, data, now);
    return c.fd >= 0;
}

void LoadWorker::onAnswer(Connection& c, std::string_view data, int64_t now) {
    DatagramState& d = *c.datagram;
    RunResult& r = m_recorder.result();
    const bool counted = inCountingWindow(now);
    const size_t sent = c.count - c.unsent;
    if (!m_datagrams->sequenced) {
        // Nothing to tell one answer from another: the oldest request takes it.
        if (sent == 0) {
            r.answersStray += counted ? 1 : 0;
            return;
        }
        completeAnswer(c, 0, d.sequenceOf(uint32_t(c.front().stream)), data.size(), now);
        return;
    }
    const std::optional<uint64_t> sequence = udp::readSequence(data);
    if (!sequence || *sequence >= d.nextSequence) {
        r.answersStray += counted ? 1 : 0;
        return;
    }
    if (d.nextSequence - *sequence > DatagramState::kHistory) {
        r.answersLate += counted ? 1 : 0; // too old to tell: long after its timeout
        return;
    }
    switch (d.fate(*sequence)) {
    case SequenceFate::Answered:
        r.answersDuplicate += counted ? 1 : 0;
        return;
    case SequenceFate::Lost:
        r.answersLate += counted ? 1 : 0;
        return;
    case SequenceFate::Unknown:
        r.answersStray += counted ? 1 : 0;
        return;
    case SequenceFate::Outstanding:
        break;
    }
    for (size_t i = 0; i < sent; ++i) {
        if (uint32_t(c.at(i).stream) == uint32_t(*sequence)) {
            completeAnswer(c, i, *sequence, data.size(), now);
            return;
        }
    }
    r.answersStray += counted ? 1 : 0;
}

void LoadWorker::completeAnswer(Connection& c, size_t index, uint64_t sequence, size_t bytes,
                                int64_t now) {
    DatagramState& d = *c.datagram;
    InFlight request = c.removeAt(index);
    --m_inFlight;
    if (now - request.sentNs > m_spec.requestTimeout.count()) {
        // Past its timeout before the loop looked (a busy machine): lost, as the timeout
        // says, and its answer late, whichever the loop saw first.
        d.fate(sequence) = SequenceFate::Lost;
        if (counts(request.budgeted, now)) {
            m_recorder.failure(ErrorClass::Lost,
                               "no answer within the timeout (a datagram was lost)");
            ++m_recorder.result().answersLate;
        }
        issueDatagrams(c, now);
        return;
    }
    ++c.responses;
    d.fate(sequence) = SequenceFate::Answered;
    const bool outOfOrder = d.answeredAny && sequence < d.highestAnswered;
    d.highestAnswered = d.answeredAny ? std::max(d.highestAnswered, sequence) : sequence;
    d.answeredAny = true;
    if (!c.everConnected) {
        c.everConnected = true; // an answer came: the peer is there
        m_shared.everConnected.store(true, std::memory_order_relaxed);
    }
    m_coalescer.onResponse(now - request.sentNs);
    if (&c == m_soleConnection)
        soleTransactionCompleted(c, now);
    // The next request goes out before the bookkeeping of this one.
    issueDatagrams(c, now);
    if (!counts(request.budgeted, now))
        return;
    if (outOfOrder)
        ++m_recorder.result().answersOutOfOrder;
    if (bytes != m_datagrams->answerBytes) {
        m_recorder.failure(ErrorClass::Exception,
                           "an answer of " + std::to_string(bytes) + " bytes where " +
                               std::to_string(m_datagrams->answerBytes) + " were expected");
        return;
    }
    request.firstByteNs = now;
    request.bytesReceived = bytes;
    ResponseInfo info;
    info.bodyBytes = bytes;
    m_recorder.response(request, info, now, *c.session);
}

void LoadWorker::expireDatagrams(Connection& c, int64_t now) {
    if (m_isStream) {
        if (c.draining && c.datagram->queryNonce != 0 && now >= c.datagram->queryAgainNs) {
            if (c.datagram->queriesSent < kCountQueries)
                sendCountQuery(c, now, true, false);
            else
                endDrain(c, m_shared.deadlineNs); // no Loadscope sink: what it got is unknown
        }
        return;
    }
    DatagramState& d = *c.datagram;
    bool expired = false;
    while (c.count > c.unsent && now - c.front().sentNs > m_spec.requestTimeout.count()) {
        const InFlight request = c.pop();
        --m_inFlight;
        d.fate(d.sequenceOf(uint32_t(request.stream))) = SequenceFate::Lost;
        expired = true;
        if (counts(request.budgeted, now))
            m_recorder.failure(ErrorClass::Lost,
                               "no answer within the timeout (a datagram was lost)");
    }
    if (expired)
        issueDatagrams(c, now);
}

void LoadWorker::datagramRefused(Connection& c, int64_t now) {
    if (!c.everConnected && !m_shared.everConnected.load(std::memory_order_relaxed)) {
        // The port was refused before any answer came: nothing listens there, and going on
        // would only count the same error. One refusal says it, where a TCP run waits for
        // every connection's: the kernel rate-limits the ICMP that tells the others.
        m_shared.unreachable.store(true, std::memory_order_relaxed);
        m_shared.stop.store(true, std::memory_order_relaxed);
        m_recorder.keepFirstError("connect to " + m_spec.target.toString() +
                                  ": Connection refused (no UDP server on that port)");
        return;
    }
    // From a read, the request it failed is replaced; a send's loop goes on by itself.
    if (!m_isStream && c.state == Connection::State::Open && c.unsent == 0)
        issueDatagrams(c, now);
}

void LoadWorker::streamDatagrams(Connection& c) {
    if (c.draining || c.state != Connection::State::Open)
        return;
    DatagramState& d = *c.datagram;
    const int64_t now = readClock();
    if (now >= m_shared.measureStartNs && !d.measuredStream) {
        // What the sink counts under this id is the measured stretch's alone:
        // messages of the warm-up still on their way count under the old one.
        d.measuredStream = true;
        d.streamId = newStreamId();
        d.nextSequence = 0;
    }
    // Past the measured stretch nothing more is sent: the sink counts every message under
    // the stretch's id, so one sent after it, uncounted here, would be received but not sent.
    if (d.measuredStream && now >= m_shared.deadlineNs)
        return;
    const bool counted = now >= m_shared.measureStartNs;
    RunResult& r = m_recorder.result();
    for (int i = 0; i < 64; ++i) { // bounded, so one connection cannot starve the others
        if (m_datagrams->sequenced)
            udp::writeStreamHeader(d.payload.data(), {d.streamId, d.nextSequence});
        const ssize_t n =
            ::send(c.fd, d.payload.data(), d.payload.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) {
            ++d.nextSequence;
            if (counted) {
                ++r.datagramsSent;
                r.bytesSent += uint64_t(n);
            }
            continue;
        }
        const int error = errno;
        if (wouldBlock(error) || error == EINTR)
            return;
        if (error == ENOBUFS || error == EPERM) {
            // As netperf's UDP_STREAM: a send the kernel had no room for (or a
            // local filter dropped) is counted and the stream goes on.
            r.sendErrors += counted ? 1 : 0;
            return;
        }
        if (error == ECONNREFUSED) {
            if (m_measuring)
                m_recorder.failure(ErrorClass::Connect, "connect to " + m_spec.target.toString() +
                                                            ": " + std::strerror(error));
            datagramRefused(c, now);
            return;
        }
        if (m_measuring)
            m_recorder.failure(ErrorClass::Write, std::string("send: ") + std::strerror(error));
        dropConnection(c, now, false);
        return;
    }
}

void LoadWorker::sendCountQuery(Connection& c, int64_t now, bool end, bool newQuestion) {
    DatagramState& d = *c.datagram;
    d.endQuery = end;
    if (newQuestion || d.queryNonce == 0)
        d.queryNonce = (uint64_t(newStreamId()) << 32 | newStreamId()) | 1; // never 0
    d.queryAgainNs = now + kCountQueryAgainNs;
    ++d.queriesSent;
    char query[udp::kCountBytes];
    udp::writeCountQuery(query, {d.streamId, d.queryNonce});
    // Lost or refused, the next query or the end's last says so; nothing to count here.
    [[maybe_unused]] const ssize_t n =
        ::send(c.fd, query, sizeof query, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void LoadWorker::onCountAnswer(Connection& c, std::string_view data, int64_t now) {
    DatagramState& d = *c.datagram;
    const std::optional<udp::CountAnswer> answer = udp::readCountAnswer(data);
    if (!answer || d.queryNonce == 0 || answer->query.nonce != d.queryNonce ||
        answer->query.streamId != d.streamId)
        return; // a sink sends nothing else; an old answer says nothing of now
    d.queryNonce = 0;
    if (!c.everConnected) {
        c.everConnected = true;
        m_shared.everConnected.store(true, std::memory_order_relaxed);
    }
    if (!d.endQuery || !c.draining)
        return;
    RunResult& r = m_recorder.result();
    if (d.measuredStream) {
        ++r.sinkReports;
        r.sinkDatagrams += answer->counts.datagrams;
        r.sinkBytes += answer->counts.bytes;
        r.sinkOutOfOrder += answer->counts.outOfOrder;
        r.sinkDuplicates += answer->counts.duplicates;
    }
    static_cast<void>(now);
    endDrain(c, m_shared.deadlineNs);
}

bool LoadWorker::drainDatagramStreams(int64_t now) {
    if (!m_draining) {
        // The measured time is the sending: what arrived of it is the sink's
        // count, asked in the stream behind the last message, which the sink
        // reads after every message queued before it.
        m_draining = true;
        for (auto& owned : m_connections) {
            Connection& c = *owned;
            if (c.state != Connection::State::Open) {
                closeSocket(c);
                continue;
            }
            c.draining = true;
            ++m_streamsDraining;
            setWriteInterest(c, false);
            c.datagram->queriesSent = 0;
            sendCountQuery(c, now, true, true);
        }
        m_toOpen.clear();
    }
    return m_streamsDraining == 0;
}

} // namespace loadscope::engine::detail
