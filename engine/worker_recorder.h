#pragma once

#include "engine/error_class.h"
#include "engine/protocol.h"
#include "engine/run_result.h"
#include "engine/run_state.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace loadscope::engine::detail {

// One request's times and bytes. Each time is read when its event happens:
// sent when the send that writes the request's last byte begins, first byte
// and completion when the recv that held them returned.
struct InFlight {
    int64_t startNs = 0;    // when it was sent; the first on a connection: when the connect began
    int64_t intendedNs = 0; // fixed rate: when the schedule meant it to start; 0: closed loop
    int64_t connectNs = 0;  // connect time charged to this request (first on a connection)
    int64_t tlsNs = 0;      // TLS handshake time charged with it
    int64_t sentNs = 0;
    int64_t firstByteNs = 0;
    uint64_t bytesReceived = 0; // of its response so far, headers included
    uint32_t requestBytes = 0;
    bool startsAtSend = true; // false for the first on a connection (it starts at the connect)
    bool budgeted = false;    // drew one of a counted run's requests when it was claimed
    int32_t stream = 0;       // HTTP/2: the stream that carries it; UDP: its sequence's low 32 bits
};

// What one worker measured: counts, bytes, error classes and histograms in its
// RunResult, and the interval the monitor collects through the mailbox. Only
// the worker's thread calls it; publish() alone takes the mailbox's lock.
//
// Most responses have one time: no connect charged (a kept-alive connection),
// the request sent when issued and the response read in one go, so waiting,
// processing and total are the same value and connect is 0. Such a response
// is recorded once, in its own interval histogram; publish() adds that
// interval to a running histogram, and finish() folds the running histogram
// into the four of the result. The rest are recorded in each histogram, as
// before. The result's histograms are complete only after finish().
class WorkerRecorder {
public:
    WorkerRecorder(SharedRunState& shared, const Protocol& protocol);

    // Maps the histograms' buckets now, so that the run does not pay for it.
    // Maps the uncorrected histogram's too at a fixed rate.
    void reserveHistograms(bool fixedRate = false);
    // A complete response the worker counts (it ended inside the counting
    // window: see LoadWorker::counts). Its bytes and its request's are counted
    // with it when it succeeded; an error reply or a Length failure brings none.
    void response(const InFlight& request, const ResponseInfo& info, int64_t now,
                  const ProtocolSession& session);
    // A counted failed request; the first message is kept. Its bytes are not
    // counted: rates, the transfer rate among them, are over successful responses.
    void failure(ErrorClass error, std::string_view message);
    // The run's first error when none is kept yet, nothing counted: why a run
    // that ended before any request was due could not go on.
    void keepFirstError(std::string_view message);
    // A TLS handshake that completed at `now`, `ns` long.
    void handshake(int64_t ns, bool resumed, int64_t now, const char* protocol, const char* cipher);
    // A stream connection whose peer read everything (netperf TCP_STREAM's end).
    void streamDelivered(int64_t now) { m_lastCompletionNs = std::max(m_lastCompletionNs, now); }
    // Hands the interval and the running totals to the monitor.
    void publish();
    // Publishes, then completes the result's histograms; after the last response.
    void finish();

    RunResult& result() { return m_result; }
    WorkerMailbox& mailbox() { return m_mailbox; }
    int64_t lastCompletionNs() const { return m_lastCompletionNs; }

private:
    // An error reply's class, in the result's errorReplyCodes.
    void countErrorReplyCode(std::string_view code);

    SharedRunState& m_shared;
    const bool m_keepAlive;
    const bool m_checksDocumentLength;
    RunResult m_result;
    Histogram m_singleTimeInterval; // one-time responses since the last publish
    Histogram m_otherInterval;      // the other responses since the last publish
    Histogram m_singleTime;         // one-time responses before the last publish
    uint64_t m_intervalComplete = 0;
    int64_t m_lastCompletionNs = 0;
    int64_t m_documentLength = -1; // the shared documentLength, once set
    int m_lastStatusCode = 0;      // whose count m_lastStatusCount is (0: none)
    uint64_t* m_lastStatusCount = nullptr;
    WorkerMailbox m_mailbox;
};

} // namespace loadscope::engine::detail
