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
    // Consumes bytes of the current response. After Complete, the next feed()
    // starts the next response as begin() with the same `bodiless` would; after
    // Malformed every call reports Malformed again until begin().
    FeedResult feed(std::string_view data);
    // The peer closed the stream (see ProtocolSession::finishAtEof).
    FeedResult finishAtEof();
    // Body bytes to come that are only counted (see ProtocolSession::skippableBytes):
    // the rest of a Content-Length body or of a chunk's data, or any number for a
    // body that runs to the close; 0 elsewhere.
    uint64_t skippableBytes() const;
    // Counts `n` of those bytes as feed() would count them, without the bytes.
    FeedResult skip(uint64_t n);
    // Some bytes of a response (an interim 1xx one included) arrived and it
    // has not completed yet. Blank lines before a status line do not count.
    bool inProgress() const {
        return m_bytesThisResponse > 0 && m_state != State::Idle && m_state != State::Done &&
               m_state != State::Failed;
    }
    bool sawAnyByte() const { return m_bytesThisResponse > 0; }

    // Details of the response being parsed or just completed.
    int statusCode() const { return m_status; }
    // Status line to blank line of the final response; interim 1xx blocks
    // are not included.
    uint64_t headerBytes() const { return m_headerBytes; }
    // After the header block, as the bytes came: a chunked body with its
    // chunk-size lines, CRLFs, last chunk and trailers (as ab 2.3 counts it).
    uint64_t bodyBytes() const { return m_bodyBytes; }
    bool keepAlive() const { return m_keepAlive; }
    std::string_view server() const { return m_server; }
    std::string_view error() const { return m_error; }

private:
    enum class State : uint8_t {
        Idle,
        StatusLine,
        Headers,
        Body, // Content-Length body
        ChunkSize,
        ChunkData,
        ChunkDataCR, // CR (or bare LF) after chunk data
        ChunkDataLF, // LF after that CR
        Trailers,
        UntilClose,
        Done,
        Failed,
    };
    enum class Step : uint8_t { Continue, Completed, Failed };
    enum class LineStatus : uint8_t { Complete, Partial, Failed };
    // Header fields whose folded continuation would change how the body is framed.
    enum class Field : uint8_t { Other, ContentLength, TransferEncoding, Connection };

    LineStatus takeLine(std::string_view data, size_t& pos, std::string_view& line);
    // Whole lines of a head (a status line first when one is due) from
    // data[pos] on, while nothing is buffered; stops at the end of the block,
    // at a partial line or at the size limit.
    // `handOver`: it stopped at a line that takeLine is to take next.
    Step takeWholeHeaderLines(std::string_view data, size_t& pos, bool& handOver);
    void releaseLine();
    Step processLine(std::string_view line);
    // Every header-derived fact belongs to one response: a final response
    // does not inherit anything from a 1xx before it.
    void forgetHeaderFields();
    Step parseStatusLine(std::string_view line);
    Step parseHeaderLine(std::string_view line);
    Step parseContentLength(std::string_view value);
    void parseTransferEncoding(std::string_view value);
    void parseConnection(std::string_view value);
    Step endOfHeaders();
    Step parseChunkSize(std::string_view line);
    Step parseTrailerLine(std::string_view line);
    Step complete();
    Step fail(std::string_view message);
    FeedResult result(Step step, size_t consumed) const;

    State m_state = State::Idle;
    bool m_bodiless = false;
    int m_status = 0;
    bool m_keepAlive = true;
    bool m_http10 = false;
    bool m_connectionClose = false;
    bool m_connectionKeepAlive = false;
    bool m_chunked = false;
    bool m_transferEncoding = false;
    Field m_lastField = Field::Other;
    int64_t m_contentLength = -1;
    uint64_t m_remaining = 0;
    uint64_t m_headerBytes = 0;
    uint64_t m_blockBytes = 0; // complete lines of the current header, chunk-size or trailer block
    uint64_t m_bodyBytes = 0;
    uint64_t m_bytesThisResponse = 0;
    std::string m_line; // a line split across feeds; bounded by kMaxHeaderBytes
    std::string m_server;
    std::string m_error;
};

} // namespace loadscope::engine
