#pragma once

#include "engine/http2_memory_pool.h"
#include "engine/http2_protocol.h"
#include "engine/multiplexed_session.h"

#include <deque>
#include <nghttp2/nghttp2.h>
#include <string>
#include <vector>

namespace loadscope::engine {

// The client side of one HTTP/2 connection on nghttp2, fed and drained in
// memory (nghttp2_session_mem_recv / mem_send): the worker's own reads and
// writes, plain or TLS, carry the bytes, so a request costs no system call of
// its own. Owned by one worker thread.
class Http2Session final : public MultiplexedSession {
public:
    Http2Session(const Http2Request& request, const Http2Settings& settings);
    ~Http2Session() override;
    Http2Session(const Http2Session&) = delete;
    Http2Session& operator=(const Http2Session&) = delete;

    // ProtocolSession: a request is one stream; the preface and SETTINGS go
    // out with the first.
    void queueRequest(RequestQueue& out) override;
    // In send order, for callers with one stream at a time (the probe, the
    // fuzz target): Complete when a stream ended, with all of `data` consumed.
    FeedResult feed(std::string_view data) override;
    FeedResult finishAtEof() override;
    void resetConnection() override;
    std::string_view serverSoftware() const override { return m_server; }
    std::string_view lastError() const override { return m_lastError; }

    // MultiplexedSession
    int32_t lastStream() const override { return m_lastStream; }
    bool canOpenStream(size_t outstanding) const override;
    bool receive(std::string_view data, int64_t now, std::vector<StreamEvent>& events) override;
    void takeEvents(std::vector<StreamEvent>& events) override;
    void produce(RequestQueue& out) override;
    bool over() const override;
    bool goawayReceived() const override { return m_goaway; }
    bool goawayGraceful() const override { return m_goaway && m_goawayError == 0; }
    int32_t goawayLastStream() const override { return m_goawayLastStream; }

private:
    struct Stream {
        int32_t id = 0;
        ResponseInfo info;
        uint64_t bytes = 0;
        // Of `bytes`, the frame begun last and not yet received whole: a
        // stream that ends meanwhile (reset, the session over) counts only
        // the frames that came.
        uint64_t unconfirmed = 0;
        int64_t firstByteNs = 0;
        bool ended = false;       // END_STREAM received
        bool resetByPeer = false; // RST_STREAM received
        uint32_t resetCode = 0;
        uint64_t bodySent = 0; // of the request body
        // The client resets the stream: why (nghttp2 found its response malformed).
        std::string invalid;
        int64_t contentLength = -1; // the response's content-length; -1: none
    };
    friend struct Http2Callbacks;

    void start();
    Stream* newStream();
    void release(Stream* stream);
    void emit(Stream& s, StreamEvent::Kind kind, ErrorClass error, std::string message);

    const Http2Request& m_request;
    const Http2Settings& m_settings;
    std::vector<nghttp2_nv> m_fields; // point into m_request, which outlives the session
    Http2MemoryPool m_memory;         // every nghttp2 allocation of m_session's
    nghttp2_session* m_session = nullptr;
    std::deque<Stream> m_streamStore; // stable addresses: nghttp2 holds them as user data
    std::vector<Stream*> m_freeStreams;
    std::vector<StreamEvent> m_events;    // ended streams not yet taken (receive, takeEvents)
    std::vector<StreamEvent> m_fedEvents; // feed()'s
    int64_t m_now = 0;
    int32_t m_lastStream = 0;
    bool m_settingsReceived = false;
    bool m_goaway = false;
    int32_t m_goawayLastStream = 0;
    uint32_t m_goawayError = 0;
    bool m_failed = false;     // a fatal nghttp2 error: the session cannot go on
    bool m_goawaySent = false; // the client ended the session (a connection error)
    std::string m_server;
    std::string m_lastError;
    // nghttp2's error callback text, for the invalid frame it comes before.
    std::string m_callbackError;
    // Why nghttp2 refused a frame of the session's (not a stream's), for the
    // GOAWAY it ends the session with.
    std::string m_protocolError;
};

} // namespace loadscope::engine
