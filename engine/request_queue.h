#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace loadscope::engine {

// The request bytes a connection has yet to send, oldest first. A request is
// made of parts: small ones built per request (a memcached key line) are
// copied in; large immutable ones (an HTTP request with its body, a TCP_RR
// request, a memcached value) are only referenced, so that a run holds one
// copy of them however many connections send them, and pipelining sends the
// same bytes again from one buffer. Owned by one connection on one worker
// thread; once grown to the pipeline's depth it allocates no more.
class RequestQueue {
public:
    // Below this a copy costs less than another iovec, and a pipelined burst of
    // small requests stays one contiguous send.
    static constexpr size_t kReferenceFromBytes = 1024;

    // Copies `bytes`.
    void append(std::string_view bytes);
    // References `bytes` (copies them when smaller than kReferenceFromBytes).
    // They must stay unchanged until the queue is cleared or sent: they are
    // owned by the Protocol, which outlives every session and connection.
    void appendShared(std::string_view bytes);

    bool empty() const { return m_first == m_parts.size(); }
    // Bytes queued since the last clear(), sent or not.
    size_t queuedBytes() const { return m_queued; }
    void clear();

    // One send (or sendmsg over several parts) of what is left, without
    // blocking or SIGPIPE; returns what the call returned, errno as it left it.
    ssize_t sendTo(int fd);
    // The unsent bytes, copied; for callers that want the request as text.
    std::string unsentBytes() const;

    // For a sender other than a socket (TLS): the unsent bytes of the oldest
    // part, whether it is the last part, up to `limit` unsent bytes appended
    // to `out`, and the bytes that went out. Not empty() before each.
    std::string_view frontPart() const {
        const Part& part = m_parts[m_first];
        return {bytesOf(part) + m_firstOffset, part.size - m_firstOffset};
    }
    bool frontIsLast() const { return m_first + 1 == m_parts.size(); }
    void copyUnsent(std::string& out, size_t limit) const;
    void consume(size_t sent);

private:
    struct Part {
        const char* shared; // nullptr: m_copied[offset, offset + size)
        size_t offset;
        size_t size;
    };
    const char* bytesOf(const Part& part) const {
        return part.shared ? part.shared : m_copied.data() + part.offset;
    }

    std::string m_copied;
    std::vector<Part> m_parts;
    size_t m_first = 0;       // oldest part not sent entirely
    size_t m_firstOffset = 0; // bytes of it already sent
    size_t m_queued = 0;
};

} // namespace loadscope::engine
