#pragma once

#include "engine/protocol.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace loadscope::engine {

// Incremental HTTP/1.x response parser. Feed it whatever bytes arrive, split
// anywhere; it consumes one response at a time and reports where it ended, so
// pipelined responses are parsed back to back. Body bytes are counted, never
// copied. Handles Content-Length, chunked bodies with trailers, close-delimited
// bodies, 1xx interim responses and bodiless responses (HEAD, 204, 304).
class HttpResponseParser {
public:
    static constexpr size_t kMaxHeaderBytes = 64 * 1024;

    // Starts a new response. `bodiless`: the request was HEAD.
    void begin(bool bodiless);
    FeedResult feed(std::string_view data);
    // The peer closed the stream (see ProtocolSession::finishAtEof).
    FeedResult finishAtEof();
    bool inProgress() const { return m_state != State::Idle && m_state != State::StatusLine; }
    bool sawAnyByte() const { return m_bytesThisResponse > 0; }

    // Details of the response being parsed or just completed.
    int statusCode() const { return m_status; }
    uint64_t headerBytes() const { return m_headerBytes; }
    uint64_t bodyBytes() const { return m_bodyBytes; }
    bool keepAlive() const { return m_keepAlive; }
    std::string_view server() const { return m_server; }
    std::string_view error() const { return m_error; }

private:
    enum class State : uint8_t {
        Idle,
        StatusLine,
        Headers,
        Body,       // Content-Length body
        ChunkSize,
        ChunkData,
        ChunkDataEnd, // CRLF after chunk data
        Trailers,
        UntilClose,
        Done,
    };

    State m_state = State::Idle;
    bool m_bodiless = false;
    int m_status = 0;
    bool m_keepAlive = true;
    bool m_chunked = false;
    int64_t m_contentLength = -1;
    uint64_t m_remaining = 0;
    uint64_t m_headerBytes = 0;
    uint64_t m_bodyBytes = 0;
    uint64_t m_bytesThisResponse = 0;
    std::string m_line; // a header line split across feeds; bounded by kMaxHeaderBytes
    std::string m_server;
    std::string m_error;
};

} // namespace loadscope::engine
