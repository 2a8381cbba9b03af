// LoadWorker: the TLS handshake of an https connection, between the TCP
// connect and the first request.
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"

#include <sys/epoll.h>

namespace loadscope::engine::detail {

void LoadWorker::startHandshake(Connection& c, int64_t now) {
    SSL* ssl = m_tls->newConnection(c.fd, c.stampedReceives);
    if (!ssl) {
        failHandshake(c, now, "TLS: cannot allocate a connection");
        return;
    }
    c.tls = std::make_unique<TlsSession>(ssl);
    setState(c, Connection::State::Handshaking);
    c.handshakeStartNs = now;
    continueHandshake(c, now);
}

void LoadWorker::continueHandshake(Connection& c, int64_t now) {
    switch (c.tls->handshake()) {
    case TlsSession::Step::WantRead:
        setWriteInterest(c, false);
        return;
    case TlsSession::Step::WantWrite:
        setWriteInterest(c, true);
        return;
    case TlsSession::Step::Failed:
        failHandshake(c, now, c.tls->failure());
        return;
    case TlsSession::Step::Done:
        break;
    }
    // Read again: on loopback the whole handshake can complete inside the
    // call that began it, long after the `now` it was given.
    now = readClock();
    c.tlsNs = now - c.handshakeStartNs;
    setState(c, Connection::State::Open);
    m_recorder.handshake(c.tlsNs, c.tls->resumed(), now, c.tls->protocol(), c.tls->cipher());
    if (alpnRefused(c, now))
        return;
    setWriteInterest(c, false);
    startRequests(c, now);
}

void LoadWorker::failHandshake(Connection& c, int64_t now, const std::string& reason) {
    // As a failed connect: a failed request, the one the connection was opened for.
    InFlight request;
    const bool claimed = takeClaimed(c, request) || claimRequest(now, request) == Claim::Claimed;
    if (claimed && counts(request.budgeted, now))
        m_recorder.failure(ErrorClass::Tls,
                           "TLS handshake with " + m_spec.target.toString() + ": " + reason);
    closeSocket(c);
    queueOpen(c, now + kReconnectBackoffNs);
}

} // namespace loadscope::engine::detail
