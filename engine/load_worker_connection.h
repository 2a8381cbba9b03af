#pragma once

// The per-connection state of a LoadWorker, shared by the files that make up
// the worker: load_worker.cpp (the event loop and sending requests),
// load_worker_read.cpp (receiving and completing responses),
// load_worker_connect.cpp (opening, failing and dropping connections),
// load_worker_stream.cpp (TCP_STREAM writing and its drain at the end),
// load_worker_schedule.cpp (claiming requests, the fixed rate),
// load_worker_tls.cpp (the TLS handshake), load_worker_h2.cpp (HTTP/2's
// streams, which complete in any order) and load_worker_datagram.cpp (UDP).
#include "engine/load_worker.h"
#include "engine/request_queue.h"
#include "engine/tls_session.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace loadscope::engine::detail {

inline constexpr int64_t kReconnectBackoffNs = 10'000'000;
inline constexpr size_t kReadBufferBytes = 64 * 1024; // LoadWorker::m_readBuffer
// The most one uncopied read (MSG_TRUNC) takes of a body: LoadWorker::m_discardBuffer's size,
// whose pages the kernel never writes.
inline constexpr size_t kDiscardBytes = 1024 * 1024;
inline constexpr int kWaitMs = 10; // bounds how late a cancel or a deadline is noticed
// Reads of one connection per pass of the loop (1 MiB with kReadBufferBytes):
// a peer that keeps its socket full, a flood of frames or an endless body,
// cannot hold the loop away from its deadlines, a cancel or other connections.
inline constexpr int kReadsPerPass = 16;

enum class ConnectionState : uint8_t { Closed, Connecting, Handshaking, Open };

// What became of a recent udp-rr sequence number (DatagramState::history).
enum class SequenceFate : uint8_t { Unknown, Outstanding, Answered, Lost };

// A UDP socket's own state (load_worker_datagram.cpp): its copy of the
// payload, stamped before each send, and what it knows of its sequences.
struct DatagramState {
    // Sequences this far back keep their fate: an answer to an older one is late.
    static constexpr uint64_t kHistory = 1024;

    std::string payload;
    uint64_t nextSequence = 0;         // of the next request (udp-rr) or message (udp-stream)
    std::vector<SequenceFate> history; // udp-rr: by sequence % kHistory
    uint64_t highestAnswered = 0;
    bool answeredAny = false;
    // udp-stream: the stream's id in the header, a new one for the measured
    // stretch, and the count query awaiting its answer (udp_datagram.h).
    uint32_t streamId = 0;
    bool measuredStream = false;
    uint64_t queryNonce = 0; // 0: no query outstanding
    bool endQuery = false;   // the outstanding query is the end's, not the hello's
    int queriesSent = 0;
    int64_t queryAgainNs = 0;

    SequenceFate& fate(uint64_t sequence) { return history[sequence % kHistory]; }
    // The whole sequence of an outstanding request from the low 32 bits it keeps.
    uint64_t sequenceOf(uint32_t low) const {
        return nextSequence - uint32_t(uint32_t(nextSequence) - low);
    }
};

struct LoadWorker::Connection {
    using State = ConnectionState;

    uint32_t index = 0;
    int fd = -1;
    State state = State::Closed; // set by LoadWorker::setState, which keeps its counts
    std::unique_ptr<ProtocolSession> session;
    MultiplexedSession* mux = nullptr;       // session->multiplexed(): read by stream, not in order
    std::unique_ptr<TlsSession> tls;         // https: reads and writes go through it
    std::unique_ptr<DatagramState> datagram; // UDP: the socket is a connected datagram socket
    int64_t handshakeStartNs = 0;
    int64_t tlsNs = 0; // the handshake, charged to the first request with connectNs
    int64_t connectStartNs = 0;
    int64_t connectNs = 0;     // charged to the first request on the connection
    int64_t reconnectAtNs = 0; // after a failure, wait before trying again
    bool connectCharged = false;
    bool wantWrite = false;
    bool watched = false; // in the epoll set (see setWatched)
    bool everConnected = false;
    bool queuedForOpen = false;
    bool blockingReads = false;   // recv without MSG_DONTWAIT blocks, at most kWaitMs
    bool stampedReceives = false; // SO_TIMESTAMPNS: reads say when their data arrived
    // Left with bytes to read after kReadsPerPass reads (in LoadWorker::m_unread):
    // edge-triggered, the socket reports them no second time, so the loop
    // comes back to them itself. `unreadPeerClosing`: the peer's close was
    // reported with them, so the reads go on to the end of the stream.
    bool unread = false;
    bool unreadPeerClosing = false;
    // HTTP/2: since when the connection, with nothing in flight, may open no
    // stream (the server's SETTINGS_MAX_CONCURRENT_STREAMS 0); 0: it may, or
    // it has streams open. Bounded by the request timeout (checkTimeouts).
    int64_t streamsRefusedSinceNs = 0;
    uint32_t responses = 0; // on this connection
    uint32_t retries = 0;   // requests to send again after the peer closed a reused connection
    uint32_t retriesBudgeted = 0; // how many of them drew on a counted run's budget
    bool reserved = false; // a request claimed before connecting, for which the connection opens
    bool reservedBudgeted = false;
    int64_t reservedIntendedNs = 0;    // fixed rate: the reserved request's intended start
    std::deque<int64_t> retryIntended; // fixed rate: the retries' intended starts, oldest first
    bool idle = false;                 // in LoadWorker::m_idle
    bool draining = false;       // a stream connection shut down for writing, waiting for the close
    int64_t acknowledgedNs = 0;  // while draining: when the peer had acknowledged every byte
    uint64_t drainQueued = 0;    // while draining: bytes unacknowledged when last looked at
    int64_t drainProgressNs = 0; // while draining: when that count last went down
    RequestQueue out;  // references the protocol's request bytes, never a copy of a large one
    size_t unsent = 0; // requests in `out` whose sentNs is not set yet
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
    // Removes the i-th oldest, keeping the others in send order (a stream
    // that ended before older ones): those before it move up one place.
    InFlight removeAt(size_t i) {
        const InFlight r = at(i);
        if (i >= count - unsent)
            --unsent;
        for (; i > 0; --i)
            at(i) = at(i - 1);
        pop();
        return r;
    }
};

} // namespace loadscope::engine::detail
