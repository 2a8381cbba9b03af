#include "engine/worker_recorder.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace loadscope::engine::detail {

WorkerRecorder::WorkerRecorder(SharedRunState& shared, const Protocol& protocol)
    : m_shared(shared)
    , m_keepAlive(protocol.keepAlive())
    , m_checksDocumentLength(protocol.checksDocumentLength()) {
    // Per-operation figures only where there is more than one kind (memcached get and set).
    const auto names = protocol.operationNames();
    if (names.size() > 1)
        for (const auto& name : names)
            m_result.operations.push_back(OperationStats{name, 0, 0, 0, 0, {}});
}

void WorkerRecorder::reserveHistograms(bool fixedRate) {
    for (Histogram* h :
         {&m_result.total, &m_result.connect, &m_result.waiting, &m_result.processing,
          &m_singleTimeInterval, &m_otherInterval, &m_singleTime})
        h->reserve();
    if (fixedRate)
        m_result.uncorrected.reserve();
}

void WorkerRecorder::response(const InFlight& request, const ResponseInfo& info, int64_t now,
                              const ProtocolSession& session) {
    RunResult& r = m_result;
    ++r.complete;
    m_lastCompletionNs = now;
    // At a fixed rate `total` is from the intended start (corrected), and
    // the time from the actual start goes to `uncorrected`; the phases are
    // of the actual request either way. A request sent ahead of its time,
    // within the timer slack, waited for nothing: its latency is from its send.
    const int64_t actual = now - request.startNs;
    const int64_t total =
        request.intendedNs ? now - std::min(request.intendedNs, request.startNs) : actual;
    const int64_t waiting =
        request.firstByteNs && request.sentNs ? request.firstByteNs - request.sentNs : 0;
    if (request.intendedNs == 0 && request.connectNs == 0 && request.tlsNs == 0 &&
        waiting == total) {
        m_singleTimeInterval.record(total);
    } else {
        r.total.record(total);
        if (request.intendedNs)
            r.uncorrected.record(actual);
        r.connect.record(request.connectNs);
        r.waiting.record(std::max<int64_t>(0, waiting));
        r.processing.record(std::max<int64_t>(0, actual - request.connectNs - request.tlsNs));
        m_otherInterval.record(total);
    }
    ++m_intervalComplete;
    if (info.statusCode != 0) {
        // A target answers with one code nearly always: its count is kept
        // at hand instead of looked up in the map per response (a map's
        // elements stay where they are while others are added).
        if (info.statusCode != m_lastStatusCode) {
            m_lastStatusCount = &r.statusCodes[info.statusCode];
            m_lastStatusCode = info.statusCode;
        }
        ++*m_lastStatusCount;
        if (info.statusCode < 200 || info.statusCode > 299)
            ++r.non2xx;
    }
    if (info.keepAlive && m_keepAlive)
        ++r.keepAlive;
    if (info.hit == 1)
        ++r.hits;
    else if (info.hit == 0)
        ++r.misses;
    // An operation's latency is of every reply, as `total` is; its count and
    // bytes are of the successful ones only, as requests/s is: a failed set
    // never raises the Sets rate, and the rows add up to the successful total.
    OperationStats* op =
        info.operation < r.operations.size() ? &r.operations[info.operation] : nullptr;
    if (op) {
        op->latency.record(total);
        if (info.hit == 1)
            ++op->hits;
        else if (info.hit == 0)
            ++op->misses;
    }
    if (info.errorReply) {
        ++r.failed;
        ++r.errors[size_t(ErrorClass::Exception)];
        if (r.firstError.empty())
            r.firstError = std::string(session.lastError());
        countErrorReplyCode(session.errorReplyCode());
        return;
    }
    if (m_checksDocumentLength) {
        const auto length = int64_t(info.bodyBytes);
        if (m_documentLength < 0) {
            // The first response of any worker sets the shared length, once:
            // after this worker has seen it, it compares with its own copy
            // rather than with a cache line every worker would write.
            int64_t expected = -1;
            m_documentLength = m_shared.documentLength.compare_exchange_strong(
                                   expected, length, std::memory_order_relaxed)
                                   ? length
                                   : expected;
        }
        if (m_documentLength != length) {
            ++r.failed;
            ++r.errors[size_t(ErrorClass::Length)];
            return;
        }
    }
    // Bytes are a rate's too (transfer rate, wire KiB/s): only a successful
    // response brings its bytes and its request's, as it alone raises requests/s.
    r.bytesTotal += request.bytesReceived;
    r.bytesBody += info.bodyBytes;
    r.bytesSent += request.requestBytes;
    if (op) {
        ++op->count;
        op->bytesReceived += info.bodyBytes;
    }
}

void WorkerRecorder::countErrorReplyCode(std::string_view code) {
    if (code.empty())
        return;
    auto& codes = m_result.errorReplyCodes;
    auto found = codes.find(code);
    if (found == codes.end()) {
        // A new class is an allocation, on a failed request only.
        const std::string_view kept = codes.size() < kMaxErrorReplyCodes ? code : "OTHER";
        found = codes.try_emplace(std::string(kept), 0).first;
    }
    ++found->second;
}

void WorkerRecorder::failure(ErrorClass error, std::string_view message) {
    ++m_result.complete;
    ++m_result.failed;
    ++m_result.errors[size_t(error)];
    m_lastCompletionNs = monotonicNs();
    ++m_intervalComplete;
    keepFirstError(message);
}

void WorkerRecorder::keepFirstError(std::string_view message) {
    if (m_result.firstError.empty() && !message.empty())
        m_result.firstError = std::string(message);
}

void WorkerRecorder::handshake(int64_t ns, bool resumed, int64_t now, const char* protocol,
                               const char* cipher) {
    if (now < m_shared.measureStartNs || now > m_shared.deadlineNs)
        return; // the counting window, as for responses
    RunResult& r = m_result;
    r.tls.record(ns);
    ++r.tlsHandshakes;
    if (resumed)
        ++r.tlsResumed;
    if (r.tlsProtocol.empty() && protocol)
        r.tlsProtocol = protocol;
    if (r.tlsCipher.empty() && cipher)
        r.tlsCipher = cipher;
}

void WorkerRecorder::publish() {
    {
        std::lock_guard lock(m_mailbox.mutex);
        m_mailbox.interval.merge(m_singleTimeInterval);
        m_mailbox.interval.merge(m_otherInterval);
        m_mailbox.intervalComplete += m_intervalComplete;
        m_mailbox.complete = m_result.complete;
        m_mailbox.failed = m_result.failed;
        m_mailbox.bytesReceived = m_result.bytesTotal;
        m_mailbox.bytesSent = m_result.bytesSent;
    }
    m_singleTime.merge(m_singleTimeInterval);
    m_singleTimeInterval.reset();
    m_otherInterval.reset();
    m_intervalComplete = 0;
}

void WorkerRecorder::finish() {
    publish();
    RunResult& r = m_result;
    r.total.merge(m_singleTime);
    r.waiting.merge(m_singleTime);
    r.processing.merge(m_singleTime);
    r.connect.recordN(0, m_singleTime.count());
    m_singleTime.reset();
}

} // namespace loadscope::engine::detail
