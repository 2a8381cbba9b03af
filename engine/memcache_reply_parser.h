#pragma once

#include "engine/protocol.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace loadscope::engine {

// Which replies a command allows; anything else means client and server no
// longer agree on which reply answers which command.
enum class MemcacheCommandKind : uint8_t {
    Retrieval, // get: VALUE ... END, END
    Storage,   // set: STORED, NOT_STORED, EXISTS, NOT_FOUND
};

// How the last reply ended.
enum class MemcacheReplyKind : uint8_t {
    None, // no complete reply yet
    End,  // a retrieval reply; values() tells hit (> 0) from miss
    Stored,
    NotStored,
    Exists,
    NotFound,
    Error,       // "ERROR": the server did not know the command
    ClientError, // "CLIENT_ERROR <message>"
    ServerError, // "SERVER_ERROR <message>", e.g. out of memory storing object
};

// Incremental parser for memcached text protocol replies. Feed it whatever
// bytes arrive, split anywhere; it consumes one reply at a time and reports
// where it ended, so pipelined replies are parsed back to back. Value data is
// counted, never copied.
//
// A reply is Complete after "END", a storage status line or an error line;
// ERROR / CLIENT_ERROR / SERVER_ERROR are complete replies with errorReply set
// and the line kept in error(). Malformed: an unknown or ill-formed line, a
// status that does not answer the command, a line without its CR, a line
// longer than kMaxLineBytes, or value data not followed by CRLF right where
// the VALUE line said it ends.
class MemcacheReplyParser {
public:
    // A VALUE line is at most ~310 bytes (250-byte key, three numbers); the
    // slack is for error messages.
    static constexpr size_t kMaxLineBytes = 2048;
    // memcached's largest configurable item (-I 1024m).
    static constexpr uint64_t kMaxValueBytes = uint64_t(1) << 30;

    // Starts a new reply to a command of `kind`.
    void begin(MemcacheCommandKind kind);
    FeedResult feed(std::string_view data);
    // The peer closed the stream: Malformed when a reply was begun (even with
    // no byte of it received yet), NeedMore otherwise.
    FeedResult finishAtEof();
    // Forgets everything, as after a reconnect.
    void reset();

    // A reply has been begun and not yet completed.
    bool inProgress() const { return m_state != State::Idle; }
    bool sawAnyByte() const { return m_replyBytes > 0; }

    // Details of the reply being parsed or just completed.
    MemcacheReplyKind kind() const { return m_kind; }
    uint32_t values() const { return m_values; }
    uint64_t valueBytes() const { return m_valueBytes; }
    uint64_t replyBytes() const { return m_replyBytes; }
    // The last Malformed explanation or error reply line.
    std::string_view error() const { return m_error; }

private:
    enum class State : uint8_t {
        Idle,
        Line,   // reading a reply line up to CRLF
        Data,   // counting value bytes
        DataCr, // the CR after the value
        DataLf, // the LF after the value
    };

    FeedResult handleLine(std::string_view line, size_t consumed, bool& complete);
    bool parseValueLine(std::string_view line);
    FeedResult malformed(size_t consumed, std::string message);
    FeedResult completed(size_t consumed) const;

    State m_state = State::Idle;
    MemcacheCommandKind m_command = MemcacheCommandKind::Retrieval;
    MemcacheReplyKind m_kind = MemcacheReplyKind::None;
    uint32_t m_values = 0;
    uint64_t m_valueBytes = 0;
    uint64_t m_remaining = 0; // value bytes still to come
    uint64_t m_announced = 0; // length of the current value, for the report
    uint64_t m_replyBytes = 0;
    std::string m_line; // a line split across feeds; bounded by kMaxLineBytes
    std::string m_error;
};

} // namespace loadscope::engine
