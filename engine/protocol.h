#pragma once

#include "engine/request_queue.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// What one finished response told the engine. Filled by a ProtocolSession.
struct ResponseInfo {
    int statusCode = 0;      // HTTP status code; 0 where the protocol has none
    uint64_t bodyBytes = 0;  // payload bytes: HTTP body, memcached value bytes, echo reply
    bool keepAlive = true;   // the peer keeps the connection open after this response
    uint8_t operation = 0;   // index into Protocol::operationNames()
    int8_t hit = -1;         // memcached get: 1 hit, 0 miss; -1 where it does not apply
    bool errorReply = false; // a well-formed reply that reports a failure (memcached ERROR, ...)
};

class MultiplexedSession;

// What a datagram workload sends (udp_protocol.h): the worker stamps each
// request (a stream's each message) and sends it itself, one datagram each,
// and matches the answers by the sequence they carry (udp_datagram.h).
struct DatagramShape {
    std::string_view payload; // a request or a message, before its stamp
    uint32_t answerBytes = 0; // udp-rr: the size every answer must have; 0 for a stream
    bool sequenced = false;   // the payload has room for the stamp (sequence, stream header)
};

struct FeedResult {
    enum class Status : uint8_t {
        NeedMore,  // every byte consumed, the response is not complete yet
        Complete,  // a response ended after `consumed` bytes; the rest is the next one's
        Malformed, // protocol violation: the connection must be dropped
    };
    Status status = Status::NeedMore;
    size_t consumed = 0;
    ResponseInfo info; // valid when Complete
};

// Per-connection protocol state: builds requests and parses responses
// incrementally. Owned by one worker thread; never shared.
class ProtocolSession {
public:
    virtual ~ProtocolSession() = default;

    // Queues the bytes of the next request on `out`. Called once per request in
    // send order; with pipelining several requests are outstanding at once and
    // their responses are fed back in the same order. Large fixed parts are
    // queued with appendShared, so that connections do not each hold a copy.
    virtual void queueRequest(RequestQueue& out) = 0;
    // queueRequest, with the bytes appended to `out` as text (probes, tests).
    void appendRequest(std::string& out) {
        RequestQueue queue;
        queueRequest(queue);
        out.append(queue.unsentBytes());
    }
    // Parses bytes of the oldest outstanding response. Payload bytes are
    // counted, never copied.
    virtual FeedResult feed(std::string_view data) = 0;
    // The peer closed the stream: completes a close-delimited response, or
    // returns Malformed when a response was cut short, NeedMore when none was
    // in progress.
    virtual FeedResult finishAtEof() = 0;
    // How many of the bytes to come the session only counts, never looks at
    // (what is left of a body of known length, or of a body that runs to the
    // close), so that the engine may take them from the socket without
    // copying them (recv with MSG_TRUNC); 0 when the next byte matters.
    virtual uint64_t skippableBytes() const { return 0; }
    // Consumes `n` such bytes (at most skippableBytes()) as feed() would
    // consume them: Complete when they end the response, else NeedMore.
    virtual FeedResult skip(uint64_t n) {
        (void)n;
        return {};
    }
    // A new connection starts: forget partial responses and outstanding requests.
    virtual void resetConnection() = 0;

    // Server software named by the first response (HTTP "Server"), if any.
    virtual std::string_view serverSoftware() const { return {}; }
    // Text of the last Malformed result or error reply, for the report.
    virtual std::string_view lastError() const { return {}; }
    // The class of the last error reply, where the protocol's error replies name
    // one (Redis: "ERR", "WRONGTYPE", "MOVED"); empty where they do not.
    virtual std::string_view errorReplyCode() const { return {}; }
    // Non-null for a session whose responses complete out of order (HTTP/2,
    // multiplexed_session.h): the worker reads it by stream, not by feed().
    virtual MultiplexedSession* multiplexed() { return nullptr; }
};

// A workload against one target. Immutable once built, shared by all workers;
// each worker thread calls newSession for its own connections, concurrently.
class Protocol {
public:
    virtual ~Protocol() = default;

    virtual std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                        uint64_t seed) const = 0;
    // Names of the operations a session reports in ResponseInfo::operation;
    // index 0 first. Per-operation histograms are kept when there are several.
    virtual std::vector<std::string> operationNames() const { return {"request"}; }
    // false: one request per connection (ab without -k, netperf TCP_CRR).
    virtual bool keepAlive() const { return true; }
    // ab's "Length" failures: a body whose length differs from the first response's.
    virtual bool checksDocumentLength() const { return false; }
    // Send-only workload (netperf TCP_STREAM): the engine writes streamChunk()
    // continuously and expects nothing back.
    virtual bool isStream() const { return false; }
    virtual std::string_view streamChunk() const { return {}; }
    // Non-null for UDP (udp_protocol.h): each request is one datagram on a
    // connected UDP socket, and answers may be lost, late, repeated or reordered.
    virtual const DatagramShape* datagrams() const { return nullptr; }
};

} // namespace loadscope::engine
