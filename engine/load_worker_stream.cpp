// LoadWorker: TCP_STREAM writes and the drain that ends a stream run as
// netperf does (shut down for writing, wait for the peer's close).
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loadscope::engine::detail {

namespace {

// A draining sink that acknowledges nothing for this long has stopped reading.
constexpr int64_t kStreamStallNs = 2'000'000'000;

} // namespace

void LoadWorker::streamWrite(Connection& c) {
    if (c.datagram) {
        streamDatagrams(c);
        return;
    }
    if (c.draining)
        return;
    const int64_t now = readClock();
    // Written inside the measured stretch; what is still queued at its end is
    // delivered before the sink closes (drainStreams), so all of it counts.
    const bool counted = now >= m_shared.measureStartNs && now < m_shared.deadlineNs;
    const std::string_view chunk = m_protocol.streamChunk();
    for (int i = 0; i < 64; ++i) { // bounded, so one connection cannot starve the others
        const ssize_t n = ::send(c.fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            if (counted)
                m_recorder.result().bytesSent += uint64_t(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (m_measuring)
            m_recorder.failure(ErrorClass::Write, std::string("send: ") + std::strerror(errno));
        dropConnection(c, now, false);
        return;
    }
}

uint64_t LoadWorker::unacknowledgedBytes(int fd) {
    int queued = 0;
    return fd >= 0 && ::ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0 ? uint64_t(queued) : 0;
}

bool LoadWorker::drainStreams(int64_t now) {
    if (!m_draining) {
        // As netperf TCP_STREAM: the bytes written count once the sink has
        // read them, which it has when it closes after our end of stream.
        m_draining = true;
        m_drainUntilNs = now + m_spec.requestTimeout.count();
        for (auto& owned : m_connections) {
            Connection& c = *owned;
            if (c.state == Connection::State::Open && ::shutdown(c.fd, SHUT_WR) == 0) {
                c.draining = true;
                c.drainQueued = unacknowledgedBytes(c.fd);
                c.drainProgressNs = now;
                ++m_streamsDraining;
                setWriteInterest(c, false);
            } else {
                closeSocket(c);
            }
        }
        m_toOpen.clear();
    }
    if (m_streamsDraining == 0)
        return true;
    const bool givingUp = now >= m_drainUntilNs;
    const int64_t stallNs = std::min<int64_t>(kStreamStallNs, m_spec.requestTimeout.count());
    for (auto& owned : m_connections) {
        Connection& c = *owned;
        if (!c.draining)
            continue;
        const uint64_t queued = unacknowledgedBytes(c.fd);
        if (queued == 0 && c.acknowledgedNs == 0)
            c.acknowledgedNs = now;
        if (queued != c.drainQueued) {
            c.drainQueued = queued;
            c.drainProgressNs = now;
        }
        if (queued > 0 && now - c.drainProgressNs >= stallNs) {
            // A sink whose window stays shut reads nothing more: waiting out
            // the request timeout would only stretch the run. Delivered is
            // what its kernel acknowledged, over the measured stretch.
            uint64_t& sent = m_recorder.result().bytesSent;
            sent -= std::min(sent, queued);
            ++m_recorder.result().streamsStalled;
            endDrain(c, m_shared.deadlineNs);
            continue;
        }
        if (givingUp) {
            // A sink that never closes: delivered is what its kernel
            // acknowledged, timed to when it had acknowledged the last byte.
            uint64_t& sent = m_recorder.result().bytesSent;
            sent -= std::min(sent, queued);
            endDrain(c, c.acknowledgedNs ? c.acknowledgedNs : now);
        }
    }
    return m_streamsDraining == 0;
}

void LoadWorker::endDrain(Connection& c, int64_t deliveredNs) {
    c.draining = false;
    --m_streamsDraining;
    m_recorder.streamDelivered(deliveredNs);
    closeSocket(c);
}

} // namespace loadscope::engine::detail
