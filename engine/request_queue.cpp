#include "engine/request_queue.h"

#include <algorithm>
#include <limits>
#include <sys/socket.h>
#include <sys/uio.h>

namespace loadscope::engine {

namespace {

// Parts per sendmsg: a pipelined burst of large shared requests goes out in a
// few calls, and the iovec array stays on the stack.
constexpr size_t kMaxPartsPerSend = 64;

} // namespace

void RequestQueue::append(std::string_view bytes) {
    if (bytes.empty())
        return;
    m_queued += bytes.size();
    // Copied bytes only ever go at the end of m_copied, so the last part grows
    // when it is a copy too.
    if (!m_parts.empty() && !m_parts.back().shared) {
        m_parts.back().size += bytes.size();
    } else {
        m_parts.push_back({nullptr, m_copied.size(), bytes.size()});
    }
    m_copied.append(bytes);
}

void RequestQueue::appendShared(std::string_view bytes) {
    if (bytes.size() < kReferenceFromBytes) {
        append(bytes);
        return;
    }
    m_queued += bytes.size();
    m_parts.push_back({bytes.data(), 0, bytes.size()});
}

void RequestQueue::clear() {
    m_copied.clear();
    m_parts.clear();
    m_first = 0;
    m_firstOffset = 0;
    m_queued = 0;
}

ssize_t RequestQueue::sendTo(int fd) {
    const Part& first = m_parts[m_first];
    ssize_t n;
    if (m_first + 1 == m_parts.size()) {
        // The common case (one request, or a burst of small ones): no iovec.
        n = ::send(fd, bytesOf(first) + m_firstOffset, first.size - m_firstOffset,
                   MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
        iovec vectors[kMaxPartsPerSend];
        const size_t count = std::min(kMaxPartsPerSend, m_parts.size() - m_first);
        for (size_t i = 0; i < count; ++i) {
            const Part& part = m_parts[m_first + i];
            const size_t skip = i == 0 ? m_firstOffset : 0;
            vectors[i].iov_base = const_cast<char*>(bytesOf(part) + skip);
            vectors[i].iov_len = part.size - skip;
        }
        msghdr message{};
        message.msg_iov = vectors;
        message.msg_iovlen = count;
        n = ::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (n > 0)
        consume(size_t(n));
    return n;
}

void RequestQueue::consume(size_t sent) {
    while (sent > 0) {
        const size_t left = m_parts[m_first].size - m_firstOffset;
        if (sent < left) {
            m_firstOffset += sent;
            return;
        }
        sent -= left;
        ++m_first;
        m_firstOffset = 0;
    }
    if (empty())
        clear(); // keeps the capacity for the next burst
}

void RequestQueue::copyUnsent(std::string& out, size_t limit) const {
    for (size_t i = m_first; i < m_parts.size() && limit > 0; ++i) {
        const Part& part = m_parts[i];
        const size_t skip = i == m_first ? m_firstOffset : 0;
        const size_t take = std::min(limit, part.size - skip);
        out.append(bytesOf(part) + skip, take);
        limit -= take;
    }
}

std::string RequestQueue::unsentBytes() const {
    std::string bytes;
    copyUnsent(bytes, std::numeric_limits<size_t>::max());
    return bytes;
}

} // namespace loadscope::engine
