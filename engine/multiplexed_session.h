#pragma once

#include "engine/error_class.h"
#include "engine/protocol.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// What one stream of a multiplexed connection came to.
struct StreamEvent {
    enum class Kind : uint8_t {
        Complete, // the response ended (END_STREAM); `info` holds it
        Failed,   // the stream ended without its response; `error` says how
        Refused,  // a GOAWAY refused it unprocessed: safe to send again elsewhere
    };
    Kind kind = Kind::Complete;
    int32_t stream = 0;
    ResponseInfo info;
    uint64_t bytes = 0;      // frames of the stream, frame headers included
    int64_t firstByteNs = 0; // when its first frame arrived
    ErrorClass error = ErrorClass::Exception;
    std::string message; // Failed, Refused: for the report's first error
};

// A session whose responses complete in any order: HTTP/2 streams. The
// in-order ProtocolSession::feed cannot say which request a response
// answers, so the worker reads a multiplexed connection through this
// interface instead: it keeps its InFlight ring in send order (the oldest is
// still the one a timeout looks at) and removes each request from wherever
// its stream's event finds it. Requests are still queued with queueRequest,
// which submits one stream; lastStream() names it.
class MultiplexedSession : public ProtocolSession {
public:
    // The stream the last queueRequest opened.
    virtual int32_t lastStream() const = 0;
    // Whether another stream may open with `outstanding` open: within the
    // server's SETTINGS_MAX_CONCURRENT_STREAMS, and not after a GOAWAY.
    virtual bool canOpenStream(size_t outstanding) const = 0;
    // Feeds bytes from the server, read at `now`; the streams they ended are
    // appended to `events`. false: the connection is unusable (lastError()).
    virtual bool receive(std::string_view data, int64_t now, std::vector<StreamEvent>& events) = 0;
    // Appends the streams that ended since, outside receive(): a stream the
    // client reset (a malformed response) ends as its RST_STREAM goes out,
    // in produce().
    virtual void takeEvents(std::vector<StreamEvent>& events) = 0;
    // Queues what the session owes the server (request frames, SETTINGS
    // acks, WINDOW_UPDATEs, PING acks) on `out`, whether or not a request is
    // queued.
    virtual void produce(RequestQueue& out) = 0;
    // The session has nothing more to read or write: close the connection.
    virtual bool over() const = 0;
    // The server sent GOAWAY; graceful: with NO_ERROR.
    virtual bool goawayReceived() const = 0;
    virtual bool goawayGraceful() const = 0;
    // The last stream its GOAWAY said the server processes; 0: none.
    virtual int32_t goawayLastStream() const = 0;

    MultiplexedSession* multiplexed() override { return this; }
};

} // namespace loadscope::engine
