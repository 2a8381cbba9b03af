// LoadWorker: HTTP/2 connections. Their streams end in any order, so a read
// yields events that name a stream; each event's request is taken from
// wherever it is in the connection's ring (which stays in send order, so
// the oldest request is still the one the timeout scan looks at), and each
// request's latency is its own: from its send to its END_STREAM.
#include "engine/http2_protocol.h"
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"

namespace loadscope::engine::detail {

bool LoadWorker::receiveStreams(Connection& c, std::string_view data, int64_t now) {
    m_streamEvents.clear();
    const bool usable = c.mux->receive(data, now, m_streamEvents);
    const int fd = c.fd;
    for (const StreamEvent& event : m_streamEvents)
        endStream(c, event, now);
    if (!usable) {
        failHead(c, ErrorClass::Exception, now, c.mux->lastError());
        return false;
    }
    // The frames the bytes called for (SETTINGS ack, WINDOW_UPDATE, PING
    // ack, the client's own RST_STREAMs) go out now, with the next requests
    // if there is room for them. A stream the client reset ends as its
    // RST_STREAM goes out: counted now, not when its request times out.
    issueRequests(c, now);
    if (c.fd != fd)
        return false; // dropped: nothing more to send
    m_streamEvents.clear();
    c.mux->takeEvents(m_streamEvents);
    if (!m_streamEvents.empty()) {
        for (const StreamEvent& event : m_streamEvents)
            endStream(c, event, now);
        // The room they left takes the next requests; what those sends end
        // waits in the session for the next read.
        issueRequests(c, now);
        if (c.fd != fd)
            return false;
    }
    if (c.mux->over()) {
        // The session ended: a protocol error it answered with GOAWAY, or the
        // server's GOAWAY with every stream it kept answered.
        if (c.count > 0)
            failHead(c, c.mux->goawayReceived() ? ErrorClass::Goaway : ErrorClass::Exception, now,
                     c.mux->lastError().empty()
                         ? "HTTP/2: the session ended (nghttp2 would neither read nor write)"
                         : c.mux->lastError());
        else
            dropConnection(c, now, false);
        return false;
    }
    return true;
}

void LoadWorker::endStream(Connection& c, const StreamEvent& event, int64_t now) {
    size_t i = 0;
    while (i < c.count && c.at(i).stream != event.stream)
        ++i;
    if (i == c.count)
        return; // not a request of this connection's (failed already)
    InFlight request = c.removeAt(i);
    --m_inFlight;
    request.firstByteNs = event.firstByteNs ? event.firstByteNs : now;
    request.bytesReceived = event.bytes;
    switch (event.kind) {
    case StreamEvent::Kind::Complete:
        ++c.responses;
        m_coalescer.onResponse(now - request.sentNs);
        if (c.responses == 1 && m_serverSoftware.empty())
            m_serverSoftware = std::string(c.session->serverSoftware());
        if (counts(request.budgeted, now))
            m_recorder.response(request, event.info, now, *c.session);
        return;
    case StreamEvent::Kind::Refused:
        if (c.mux->goawayGraceful() && (c.responses > 0 || c.mux->goawayLastStream() > 0)) {
            // A server that serves this connection and closes it gracefully
            // (its keepalive_requests, say) did not process the stream: as a
            // kept-alive HTTP/1 connection closed before the next answer, it
            // is sent again on the next connection, not a failure. Its GOAWAY
            // may come before the answers it promised, so a last stream above
            // 0 counts as served; one that serves nothing is counted, or the
            // same requests would go round for ever.
            c.retriesBudgeted += request.budgeted ? 1 : 0;
            if (m_schedule)
                c.retryIntended.push_back(request.intendedNs);
            ++c.retries;
            ++m_heldClaims;
            return;
        }
        break;
    case StreamEvent::Kind::Failed:
        break;
    }
    if (counts(request.budgeted, now))
        m_recorder.failure(event.error, event.message);
}

void LoadWorker::onStreamsEnd(Connection& c, int64_t now, bool reset) {
    if (c.count == 0) {
        dropConnection(c, now, false);
        return;
    }
    if (c.mux->goawayReceived()) {
        // Streams the GOAWAY promised to answer, lost with the connection.
        failHead(c, ErrorClass::Goaway, now,
                 "HTTP/2: the connection closed after GOAWAY with streams unanswered");
        return;
    }
    failHead(c, ErrorClass::Receive, now,
             reset ? "connection reset by peer" : "connection closed before a response");
}

bool LoadWorker::alpnRefused(Connection& c, int64_t now) {
    if (!c.mux || !c.tls)
        return false;
    const std::string_view chosen = c.tls->alpn();
    if (chosen == kAlpnHttp2)
        return false;
    failHandshake(c, now,
                  "the server refused HTTP/2 by ALPN (it chose " +
                      (chosen.empty() ? std::string("none") : '"' + std::string(chosen) + '"') +
                      ")");
    return true;
}

} // namespace loadscope::engine::detail
