#pragma once

#include "engine/cpu_profile.h"
#include "engine/cpu_sampler.h"
#include "engine/error_class.h"
#include "engine/histogram.h"
#include "engine/net_counters.h"
#include "engine/run_rates.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace loadscope::engine {

// Counts and latency of one operation kind (memcached "get", "set").
struct OperationStats {
    std::string name;
    // Its successful replies: an error reply is a failure (RunResult::failed)
    // and raises no operation's rate. `latency` is of every reply, as `total`.
    uint64_t count = 0;
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t bytesReceived = 0;
    Histogram latency;
};

// Classes of error replies one worker thread tells apart, so that a server
// inventing a new word per reply cannot grow a result without bound.
inline constexpr size_t kMaxErrorReplyCodes = 32;

// Everything one load run measured, merged over its worker threads.
// Plain value; metric definitions follow DESIGN.md "Metrics".
struct RunResult {
    // Requests that ended, successfully or not, failed connects included: the
    // count -n bounds (ab's "Complete requests" leaves the connects out).
    uint64_t complete = 0;
    // The subset of `complete` that failed; each failure is in exactly one class.
    uint64_t failed = 0;
    ErrorCounts errors{};
    uint64_t non2xx = 0;
    uint64_t keepAlive = 0; // responses after which the server kept the connection open
    uint64_t connectionsOpened = 0;
    std::map<int, uint64_t> statusCodes;
    // Error replies by the class their protocol names (Redis: "ERR",
    // "WRONGTYPE"; ProtocolSession::errorReplyCode()), each also an Exception.
    // At most kMaxErrorReplyCodes classes per thread; the rest count as "OTHER".
    std::map<std::string, uint64_t, std::less<>> errorReplyCodes;

    // Of the successful responses and their requests only (see WorkerRecorder::response).
    uint64_t bytesTotal = 0; // received: headers + bodies ("Total transferred")
    uint64_t bytesBody = 0;  // received payload ("HTML transferred")
    uint64_t bytesSent = 0;

    double durationSeconds = 0; // measured time, warm-up excluded
    // When the measured time began (the end of warm-up), on CLOCK_MONOTONIC of
    // the machine that ran it; 0 when unknown. Runs of several machines are
    // placed on one timeline by it (their common window).
    int64_t measureStartNs = 0;
    uint32_t concurrency = 0;
    uint32_t threads = 0;

    std::string serverSoftware;  // the first response's Server header
    int64_t documentLength = -1; // the first response's body length; -1 when none arrived
    std::string firstError;      // first error message seen, for the report

    // Per request, nanoseconds. `connect` is 0 for requests on a reused
    // connection, as ab records it; processing = total - connect.
    Histogram total;
    Histogram connect;
    Histogram waiting;
    Histogram processing;
    // Fixed-rate runs: latency from the actual send (`total` is from the
    // intended start, corrected for coordinated omission); empty when closed loop.
    Histogram uncorrected;
    // TLS (https): one sample per handshake completed in the counting window,
    // from the TCP connect's end to the handshake's; the first request on the
    // connection carries it, and its processing is total - connect - tls.
    Histogram tls;
    uint64_t tlsHandshakes = 0;   // completed in the counting window, resumed ones included
    uint64_t tlsResumed = 0;      // of those, the ones that resumed an earlier session
    std::string tlsProtocol;      // of the first handshake: "TLSv1.3"
    std::string tlsCipher;        // of the first handshake: "TLS_AES_256_GCM_SHA384"
    double offeredRate = 0;       // requests/s the spec asked for; 0: closed loop
    uint64_t maxBacklog = 0;      // most requests ever due but not yet sent (summed over threads)
    bool clientSaturated = false; // the client's own CPU could not keep the schedule
    // Per operation kind, present when the protocol has more than one (memcached).
    std::vector<OperationStats> operations;
    uint64_t hits = 0;
    uint64_t misses = 0;

    // Where the worker threads ran (CPU last seen per thread) and what they cost.
    std::vector<int> threadCpus;
    bool pinned = false;
    double clientCpuSeconds = 0; // user + sys of the worker threads
    // The machine's CPU and the server's over the measured window (from its
    // start to the moment the workers had all ended); invalid when not sampled.
    CpuWindow cpu;
    // Over the same window, when the spec asked for it: every CPU sampled,
    // by process role and kernel path (cpu_profiler.h).
    CpuProfile profile;
    // The network stack's counters over the same window, per namespace the point used.
    NetWindow net;

    // tcp-stream: connections whose peer stopped taking bytes (its window
    // closed, nothing acknowledged for a while) and never closed. What such a
    // peer's kernel acknowledged is counted as delivered, but may sit unread
    // in its receive buffer.
    uint32_t streamsStalled = 0;

    // UDP (udp-rr): answers that completed no request, each in one class: a
    // second answer to a request already answered, an answer to a request
    // already counted lost (it came after the timeout), or one to no request
    // this socket sent. Counted when they arrive inside the counting window.
    uint64_t answersDuplicate = 0;
    uint64_t answersLate = 0;
    uint64_t answersStray = 0;
    // Answers that completed their request after an answer to a later one.
    uint64_t answersOutOfOrder = 0;
    // udp-stream: messages sent in the measured time and sends the kernel
    // refused (ENOBUFS and the like), netperf's "Okay" and "Errors".
    uint64_t datagramsSent = 0;
    uint64_t sendErrors = 0;
    // udp-stream: what Loadscope's sink counted of the measured stretch's
    // messages, asked in the stream at the end; `sinkReports` is how many
    // connections' sinks answered (the figures are whole when all did).
    uint32_t sinkReports = 0;
    uint64_t sinkDatagrams = 0;
    uint64_t sinkBytes = 0;
    uint64_t sinkOutOfOrder = 0;
    uint64_t sinkDuplicates = 0;

    bool cancelled = false;   // stopped by cancel() before its limit
    bool unreachable = false; // no connection could ever be established

    // Requests that ended with a counted success (non-2xx included).
    uint64_t successful() const { return rates::successful(complete, failed); }
    // ab's "Complete requests": ab never counts a failed connect as done.
    uint64_t completeAsAb() const {
        const uint64_t connects = errors[size_t(ErrorClass::Connect)];
        return complete > connects ? complete - connects : 0;
    }

    // Rates as engine/run_rates.h defines them, over successful responses.
    double requestsPerSecond() const {
        return rates::requestsPerSecond(complete, failed, durationSeconds);
    }
    double transferRateKiBps() const {
        return rates::transferRateKiBps(bytesTotal, durationSeconds);
    }
    // Bytes sent plus received in 10^6 bit/s (tcp-stream: the send rate).
    double throughputMbitps() const {
        return rates::throughputMbitps(bytesSent, bytesTotal, durationSeconds);
    }
    // udp-stream: whether every connection's sink said what it received.
    bool sinkReported() const { return concurrency > 0 && sinkReports >= concurrency; }
    // udp-stream: the bytes the sinks received in 10^6 bit/s (netperf's remote line).
    double deliveredMbitps() const {
        return rates::throughputMbitps(0, sinkBytes, durationSeconds);
    }
    // ab's two "Time per request" lines, in milliseconds.
    double timePerRequestMs() const {
        return rates::timePerRequestMs(concurrency, durationSeconds, double(successful()));
    }
    double timePerRequestAcrossMs() const {
        return rates::timePerRequestAcrossMs(durationSeconds, double(successful()));
    }
    // Share of the worker threads' wall time spent on CPU (1.0 = saturated).
    double clientCpuLoad() const {
        return rates::clientCpuLoad(clientCpuSeconds, durationSeconds, threads);
    }
};

} // namespace loadscope::engine

namespace loadscope::engine {

// Adds `part` (another thread's or machine's result of the same run) into
// `into`: counts and histograms add, duration takes the longer, the first
// response's details are kept.
void accumulate(RunResult& into, const RunResult& part);

} // namespace loadscope::engine
