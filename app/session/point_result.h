#pragma once

#include "app/session/cpu_profile_summary.h"
#include "app/session/cpu_usage.h"
#include "app/session/net_counters.h"
#include "engine/error_class.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QUuid>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace loadscope::engine {
class Histogram;
struct CpuWindow;
struct RunResult;
} // namespace loadscope::engine

namespace loadscope::app {

// Summary of one latency distribution, in milliseconds. Measured results
// derive it from the engine's histogram; imported ones hold what the tool printed
// (any field may then be absent).
struct LatencySummary {
    std::optional<double> minMs;
    std::optional<double> meanMs;
    std::optional<double> sdMs;
    std::optional<double> maxMs;
    std::map<double, double> percentilesMs; // percentile (50, 99, 99.9 ...) -> ms

    std::optional<double> percentile(double p) const;
    bool isEmpty() const;

    friend bool operator==(const LatencySummary&, const LatencySummary&) = default;
};

// Where a result came from.
struct ResultSource {
    enum class Kind { Measured, Imported };
    Kind kind = Kind::Measured;
    QString tool;        // "loadscope", "ab", "wrk", "wrk2", "memtier_benchmark", "netperf"
    QString toolVersion; // as printed, may be empty
    QString file;        // imported: the file it was read from
    QString fingerprint; // imported: hash of the report text, to refuse duplicates

    friend bool operator==(const ResultSource&, const ResultSource&) = default;
};

// How the load that produced a result was offered. Closed loop: each
// connection sends its next request when the last answer came (ab, wrk,
// memtier_benchmark, netperf, Loadscope's sweeps). Fixed rate: requests leave
// on a schedule (wrk2 -R); latency then counts from the intended start
// ("corrected" for coordinated omission). The two answer different questions,
// so their figures are never pooled.
enum class LoadModel { ClosedLoop, FixedRate };
// "closed-loop", "fixed-rate"
QString loadModelId(LoadModel model);
std::optional<LoadModel> loadModelFromId(QStringView id);

// The machine a result was measured on.
struct RunEnvironment {
    QDateTime startedAt;
    QString hostName;
    QString kernel;
    QString cpuModel;
    int cores = 0;
    QString loadscopeVersion;
    QString threadPlacement; // "pinned to CPUs 0,1" or "ran on CPUs 0,1"
    // A lab target's point: the lab's wire MTU, the network path the lab
    // built for its mode, and the versions of what it ran ("kernel 6.1.0,
    // nginx 1.22.1, ..."); where its load client stood ("wire",
    // "server-host": labClientPlacementId()); 0 and empty for any other point.
    int labMtu = 0;
    QString labPath;
    QString labVersions;
    QString labClient;

    friend bool operator==(const RunEnvironment&, const RunEnvironment&) = default;
};

// memcached's error replies counted apart by kind (all of them are also
// Exception failures).
struct ErrorReplies {
    uint64_t error = 0;       // "ERROR": the server did not know the command
    uint64_t clientError = 0; // "CLIENT_ERROR <message>"
    uint64_t serverError = 0; // "SERVER_ERROR <message>"

    friend bool operator==(const ErrorReplies&, const ErrorReplies&) = default;
};

// UDP's datagram counts (engine::RunResult's): udp-rr's answers that completed
// no request and those that came out of order; udp-stream's sends and what the
// sink received of them.
struct DatagramCounts {
    uint64_t answersOutOfOrder = 0;
    uint64_t answersDuplicate = 0;
    uint64_t answersLate = 0;
    uint64_t answersStray = 0;
    uint64_t sent = 0;       // udp-stream: messages sent in the measured time
    uint64_t sendErrors = 0; // udp-stream: sends the kernel refused
    // udp-stream: the sink's own counts of the measured stretch; absent when
    // a sink did not say (not Loadscope's, or its answer was lost).
    std::optional<uint64_t> sinkDatagrams;
    uint64_t sinkBytes = 0;
    uint64_t sinkOutOfOrder = 0;
    uint64_t sinkDuplicates = 0;

    friend bool operator==(const DatagramCounts&, const DatagramCounts&) = default;
};

struct PointResult;

// One host's part of a point whose load came from several hosts' agents
// (Target::loadFrom): the point's own figures are the exact merge of the
// parts (DESIGN.md "Load from several hosts"); each part is kept whole.
struct AgentShare {
    QString host;     // the session's name of the host
    QString software; // what its agent said in its hello: "loadscope 0.1.0"
    // Its clock minus this machine's, as measured over the agent protocol
    // before the point (the exchange with the shortest round trip), and the
    // half round trip that bounds the error.
    double clockOffsetMs = 0;
    double clockUncertaintyMs = 0;
    // Its measured time's start and end after the point's common window began,
    // on this machine's clock (its own times less its offset).
    double startMs = 0;
    double endMs = 0;
    QString error; // why this agent failed the point; empty when it measured
    // Its own result as a point of one host keeps it; empty when it failed
    // before it measured anything. (A vector: PointResult is incomplete here.)
    std::vector<PointResult> result;

    friend bool operator==(const AgentShare&, const AgentShare&) = default;
};

// One point of a sweep: one target at one level (concurrency, or offered
// rate at a connection count), one repetition.
// Plain value. Scalars are the engine's RunResult counters; histograms are
// kept in the engine's compact byte form and decoded only when a view needs
// the whole distribution, so a session with thousands of results stays small.
struct PointResult {
    QUuid targetId;
    int concurrency = 0;
    int repetition = 0; // 0-based
    ResultSource source;
    RunEnvironment environment;
    LoadModel loadModel = LoadModel::ClosedLoop;
    std::optional<double> offeredRate; // fixed rate: requests/s offered, when known
    // A step of a capacity search (capacity_search.h): its number in the
    // search of this target and repetition, from 1; 0: not a step. Steps are
    // compared as searches, not as rate levels.
    int capacityStep = 0;

    uint64_t complete = 0;
    // An imported report that printed no count (netperf's) or no run time (memtier's
    // table): the figure is unknown, shown empty and left out of the session file,
    // never 0.
    bool completeUnknown = false;
    bool durationUnknown = false;
    uint64_t failed = 0;
    engine::ErrorCounts errors{};
    uint64_t non2xx = 0;
    uint64_t keepAlive = 0;
    std::map<int, uint64_t> statusCodes;
    uint64_t bytesTotal = 0;
    uint64_t bytesBody = 0;
    uint64_t bytesSent = 0;
    double durationSeconds = 0;
    int threads = 0;
    QString serverSoftware;
    int64_t documentLength = -1;
    uint64_t hits = 0;
    uint64_t misses = 0;
    double clientCpuSeconds = 0;
    // The machine's and the server's CPU over the measured window.
    std::optional<CpuUsage> cpu;
    // The network stack's counters over the same window, per namespace the point used.
    std::optional<NetCounterWindow> net;
    // Why the point is noisy, with its figures (cpu_usage.h); empty: quiet or not judged.
    QString noise;
    // Over the same window, when asked for: every CPU sampled, by process
    // role and kernel path (cpu_profile_summary.h).
    std::optional<CpuProfileSummary> profile;
    QString firstError;
    bool cancelled = false;
    // Where the worker threads ran (CPU last seen per thread) and whether pinned.
    std::vector<int> threadCpus;
    bool pinned = false;
    uint64_t connectionsOpened = 0;
    ErrorReplies errorReplies;
    // Redis's error replies by class, the first word of each ("ERR", "WRONGTYPE",
    // "MOVED"; "OTHER" for a reply that starts with no such word); all of them
    // are also Exception failures.
    std::map<QString, uint64_t> errorReplyCodes;
    // Replies per operation kind (memcached "set", "get"), error replies included.
    std::map<QString, uint64_t> operationCounts;
    DatagramCounts datagrams; // udp-rr, udp-stream

    // Rates as the tool reported them when imported (they win over derived ones).
    std::optional<double> reportedRequestsPerSecond;
    std::optional<double> reportedTransferKiBps;
    std::optional<double> reportedThroughputMbitps;
    // netperf UDP_STREAM's receive side, as printed (its -o/-k THROUGHPUT).
    std::optional<double> reportedDeliveredMbitps;
    // ab's two "Time per request" lines as printed: recomputing them from the
    // rounded "Time taken" would change them.
    std::optional<double> reportedTimePerRequestMs;
    std::optional<double> reportedTimePerRequestAcrossMs;

    LatencySummary total; // per request total time (ab "Total"; memcached all ops)
    // Fixed rate only: latency from the actual send, not corrected for
    // coordinated omission (wrk2 -U "Uncorrected Latency"); `total` holds the
    // corrected one.
    LatencySummary uncorrected;
    // Fixed rate, measured: the most requests ever due but not yet sent, and
    // whether the client's own CPU could not keep the schedule.
    uint64_t maxBacklog = 0;
    bool clientSaturated = false;
    LatencySummary connect;
    LatencySummary waiting;
    LatencySummary processing;
    // https: one sample per TLS handshake (not per request).
    LatencySummary tls;
    uint64_t tlsHandshakes = 0;
    uint64_t tlsResumed = 0;
    QString tlsProtocol; // "TLSv1.3"
    QString tlsCipher;
    std::map<QString, LatencySummary> perOperation; // memcached "get", "set"

    // engine::Histogram::serialize() bytes; empty for imported results.
    QByteArray totalHistogram;
    QByteArray connectHistogram;
    QByteArray waitingHistogram;
    QByteArray processingHistogram;
    QByteArray uncorrectedHistogram;
    QByteArray tlsHistogram;
    std::map<QString, QByteArray> perOperationHistograms;

    // The load came from these hosts' agents (Target::loadFrom), in the
    // order of the target's loadFrom; empty: from this machine alone.
    std::vector<AgentShare> agents;

    // Keys of the file a newer Loadscope wrote that this one does not know,
    // kept as read and saved again (session_json.h).
    QJsonObject unknownFields;

    // Rates prefer the figure an imported tool printed and otherwise derive
    // from the counters by engine/run_rates.h; all are 0 without a measured
    // time. Throughput counts bytes sent plus received in 10^6 bit/s: for
    // tcp-stream that is the send rate netperf prints, for request/response
    // the traffic on the wire.
    double requestsPerSecond() const;
    double transferRateKiBps() const;
    double throughputMbitps() const;
    // udp-stream: what the sinks received, in 10^6 bit/s; nullopt when unknown.
    std::optional<double> deliveredMbitps() const;
    // udp-stream: the share of the messages sent that the sinks did not
    // receive, in percent; nullopt when unknown.
    std::optional<double> datagramLossPercent() const;
    double timePerRequestMs() const; // concurrency x time / complete
    // Mean time per request across all concurrent requests (ab's second line).
    double timePerRequestAcrossMs() const;
    // Share of the worker threads' wall time spent on CPU (1.0 = saturated).
    double clientCpuLoad() const;
    // "closed-loop" or "fixed-rate 2000/s" (the rate when known).
    QString loadModelText() const;
    // The rate level the result belongs to in a sweep: the offered rate of a
    // fixed-rate result, 0 for closed loop (and a fixed rate not known).
    double levelRate() const {
        return loadModel == LoadModel::FixedRate ? offeredRate.value_or(0) : 0;
    }

    friend bool operator==(const PointResult&, const PointResult&) = default;
};

// The percentiles every summary carries (DESIGN.md "Metrics").
const std::vector<double>& standardPercentiles();

// Empty summary when the bytes are empty or not a valid histogram.
LatencySummary summarize(const QByteArray& serializedHistogram);
// nullopt when the bytes are not a valid histogram.
std::optional<LatencySummary> summarizeSerialized(const QByteArray& serializedHistogram);
// The figures a stored histogram's header fixes exactly (min, mean and max; no
// sd, no percentile: those take the walk over every bucket), or nullopt when
// its checksum or header is wrong (engine::Histogram::serializedHeader(): the
// runs of buckets are not walked).
std::optional<LatencySummary> serializedHeader(const QByteArray& serializedHistogram);
LatencySummary summarize(const engine::Histogram& histogram);
// The engine's window as a result keeps it (no host: the machine that sampled it).
CpuUsage cpuUsageOf(const engine::CpuWindow& window);
PointResult pointResultFromRun(const engine::RunResult& run, const QUuid& targetId, int concurrency,
                               int repetition, const RunEnvironment& environment);

} // namespace loadscope::app
