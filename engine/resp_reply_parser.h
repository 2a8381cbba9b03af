#pragma once

#include "engine/protocol.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace loadscope::engine {

// What a whole reply was, by the type of its outermost value (attributes
// before it and push messages around it left aside).
enum class RespReplyType : uint8_t {
    None,         // no complete reply yet
    SimpleString, // +OK
    Error,        // -ERR ..., or RESP3's blob error !<n>
    Integer,      // :n
    Bulk,         // $n (and RESP3's verbatim string =n)
    NullBulk,     // $-1
    Null,         // RESP3 _
    Array,        // *n, and RESP3's map %n and set ~n
    NullArray,    // *-1
    Boolean,      // RESP3 #t / #f
    Double,       // RESP3 ,<float>
    BigNumber,    // RESP3 (<digits>
};

// Incremental parser for Redis replies, RESP2 and RESP3. Feed it whatever bytes
// arrive, split anywhere; it consumes one reply at a time and says where it
// ended, so pipelined replies are parsed back to back. Bulk payloads are
// counted, never copied, and aggregates of any size need no memory: the parser
// keeps one counter per level of nesting.
//
// A reply is Complete when its outermost value is; an error reply (-... or a
// blob error !<n>) is a complete reply with errorReply set, its text kept in
// error() and its class in errorCode(). RESP3 attributes (|<n>) belong to the
// value that follows them; a push message (><n>) that comes where a reply
// would start is out of band (client tracking, pub/sub) and skipped, its bytes
// counted with the next reply. Malformed: an unknown type byte, a line not
// ended by CRLF, a length or count that is not a plain decimal (or -1 where a
// null is allowed), a line longer than kMaxLineBytes, a payload not followed by
// CRLF, nesting deeper than kMaxDepth, RESP3's streamed strings and aggregates
// (which no Redis sends), and bytes with no reply begun.
class RespReplyParser {
public:
    // Status lines, errors and numbers; Redis's longest are error messages
    // quoting a script, well below this.
    static constexpr size_t kMaxLineBytes = 64 * 1024;
    // hiredis allows 9 levels of nesting; a Lua script's reply can reach a few more.
    static constexpr size_t kMaxDepth = 64;
    // Redis's largest configurable string (proto-max-bulk-len) is far below this.
    static constexpr int64_t kMaxBulkBytes = int64_t(1) << 40;
    // What error() keeps of an error reply.
    static constexpr size_t kMaxErrorBytes = 512;

    // Starts a new reply.
    void begin();
    FeedResult feed(std::string_view data);
    // The peer closed the stream: Malformed when a reply was begun (even with no
    // byte of it received yet), NeedMore otherwise.
    FeedResult finishAtEof();
    // Forgets everything, as after a reconnect.
    void reset();

    bool inProgress() const { return m_state != State::Idle; }

    // Details of the reply being parsed or just completed.
    RespReplyType type() const { return m_type; }
    uint64_t payloadBytes() const { return m_payloadBytes; }
    uint64_t replyBytes() const { return m_replyBytes; }
    // The last Malformed explanation or error reply ("ERR unknown command ...",
    // without the leading '-'), cut at kMaxErrorBytes.
    std::string_view error() const { return m_error; }
    // The class of the last error reply: its first word when that is one to 32
    // capitals, digits, '_' or '-' as Redis's codes are ("ERR", "WRONGTYPE",
    // "MOVED"), else "OTHER".
    std::string_view errorCode() const { return m_errorCode; }

private:
    enum class State : uint8_t {
        Idle,
        Line,      // reading a type byte and its line up to CRLF
        Payload,   // counting a bulk string's bytes
        PayloadCr, // the CR after it
        PayloadLf, // the LF after it
    };
    // What a level of nesting is.
    enum class Frame : uint8_t {
        Value,     // elements of a reply's value
        Attribute, // an attribute's pairs: when done, the value they describe follows
        Push,      // an out-of-band push message at the top level
    };

    FeedResult handleLine(std::string_view line, size_t consumed, bool& complete);
    // A value (scalar or a whole aggregate) ended; true when that ended the reply.
    bool valueEnded();
    bool openAggregate(char type, int64_t count, size_t consumed, FeedResult& failure);
    void keepError(std::string_view text);
    FeedResult malformed(size_t consumed, std::string message);
    FeedResult completed(size_t consumed) const;

    State m_state = State::Idle;
    RespReplyType m_type = RespReplyType::None;
    bool m_typeKnown = false;                      // the outermost value's type byte has been read
    bool m_blobError = false;                      // the payload being read is a blob error's text
    size_t m_depth = 0;                            // levels open
    std::array<uint64_t, kMaxDepth> m_remaining{}; // elements still to come per level
    std::array<Frame, kMaxDepth> m_frames{};
    uint64_t m_payloadRemaining = 0;
    uint64_t m_payloadBytes = 0;
    uint64_t m_replyBytes = 0;
    std::string m_line; // a line split across feeds; bounded by kMaxLineBytes
    std::string m_error;
    std::string m_errorCode;
};

} // namespace loadscope::engine
