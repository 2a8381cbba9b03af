#include "app/session/point_result.h"

#include "engine/histogram.h"
#include "engine/run_rates.h"
#include "engine/run_result.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <string_view>

namespace loadscope::app {

namespace {

constexpr double kNsPerMs = 1e6;

// Percentile keys are decimal literals (99.9, 99.99); a lookup by a computed
// value must not miss them by one ulp.
constexpr double kPercentileTolerance = 1e-9;

double toMs(int64_t ns) {
    return static_cast<double>(ns) / kNsPerMs;
}

QString cpuList(const std::vector<int>& cpus) {
    QStringList parts;
    for (int cpu : cpus)
        parts << QString::number(cpu);
    return parts.join(QLatin1Char(','));
}

QByteArray serialized(const engine::Histogram& histogram) {
    if (histogram.empty())
        return {};
    const std::string bytes = histogram.serialize();
    return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

} // namespace

std::optional<double> LatencySummary::percentile(double p) const {
    for (const auto& [key, value] : percentilesMs) {
        if (std::fabs(key - p) < kPercentileTolerance)
            return value;
    }
    return std::nullopt;
}

bool LatencySummary::isEmpty() const {
    return !minMs && !meanMs && !sdMs && !maxMs && percentilesMs.empty();
}

QString loadModelId(LoadModel model) {
    return model == LoadModel::FixedRate ? QStringLiteral("fixed-rate")
                                         : QStringLiteral("closed-loop");
}

std::optional<LoadModel> loadModelFromId(QStringView id) {
    if (id == u"closed-loop")
        return LoadModel::ClosedLoop;
    if (id == u"fixed-rate")
        return LoadModel::FixedRate;
    return std::nullopt;
}

QString PointResult::loadModelText() const {
    QString text = loadModelId(loadModel);
    if (loadModel == LoadModel::FixedRate && offeredRate)
        text += QLatin1Char(' ') + QString::number(*offeredRate, 'g', 12) + QStringLiteral("/s");
    return text;
}

double PointResult::requestsPerSecond() const {
    if (reportedRequestsPerSecond)
        return *reportedRequestsPerSecond;
    return engine::rates::requestsPerSecond(complete, failed, durationSeconds);
}

double PointResult::transferRateKiBps() const {
    if (reportedTransferKiBps)
        return *reportedTransferKiBps;
    return engine::rates::transferRateKiBps(bytesTotal, durationSeconds);
}

double PointResult::throughputMbitps() const {
    if (reportedThroughputMbitps)
        return *reportedThroughputMbitps;
    return engine::rates::throughputMbitps(bytesSent, bytesTotal, durationSeconds);
}

std::optional<double> PointResult::deliveredMbitps() const {
    if (reportedDeliveredMbitps)
        return reportedDeliveredMbitps;
    if (!datagrams.sinkDatagrams || durationSeconds <= 0)
        return std::nullopt;
    return engine::rates::throughputMbitps(0, datagrams.sinkBytes, durationSeconds);
}

std::optional<double> PointResult::datagramLossPercent() const {
    if (!datagrams.sinkDatagrams || datagrams.sent == 0)
        return std::nullopt;
    // A sink counts repeats too; what it never got is what was sent and not received once.
    const uint64_t received =
        *datagrams.sinkDatagrams - std::min(*datagrams.sinkDatagrams, datagrams.sinkDuplicates);
    const uint64_t lost = datagrams.sent - std::min(datagrams.sent, received);
    return 100.0 * double(lost) / double(datagrams.sent);
}

double PointResult::timePerRequestMs() const {
    if (reportedTimePerRequestMs)
        return *reportedTimePerRequestMs;
    const auto successful = double(engine::rates::successful(complete, failed));
    if (complete > 0 && durationSeconds > 0)
        return engine::rates::timePerRequestMs(concurrency, durationSeconds, successful);
    // Imported reports may give a rate without the counts it came from: a
    // second of it holds `rate` requests.
    return engine::rates::timePerRequestMs(concurrency, 1.0, requestsPerSecond());
}

double PointResult::timePerRequestAcrossMs() const {
    if (reportedTimePerRequestAcrossMs)
        return *reportedTimePerRequestAcrossMs;
    const auto successful = double(engine::rates::successful(complete, failed));
    if (complete > 0 && durationSeconds > 0)
        return engine::rates::timePerRequestAcrossMs(durationSeconds, successful);
    return engine::rates::timePerRequestAcrossMs(1.0, requestsPerSecond());
}

double PointResult::clientCpuLoad() const {
    return engine::rates::clientCpuLoad(clientCpuSeconds, durationSeconds, threads);
}

const std::vector<double>& standardPercentiles() {
    static const std::vector<double> percentiles{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100};
    return percentiles;
}

LatencySummary summarize(const engine::Histogram& histogram) {
    LatencySummary summary;
    if (histogram.empty())
        return summary;
    summary.minMs = toMs(histogram.min());
    summary.meanMs = histogram.mean() / kNsPerMs;
    summary.sdMs = histogram.stddev() / kNsPerMs;
    summary.maxMs = toMs(histogram.max());
    for (double p : standardPercentiles())
        summary.percentilesMs[p] = toMs(histogram.valueAtPercentile(p));
    return summary;
}

namespace {

std::string_view bytesOf(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<size_t>(bytes.size())};
}

// The engine's figures in milliseconds: sd and percentiles only when `spread`
// (a header alone has neither).
std::optional<LatencySummary> inMs(const std::optional<engine::Histogram::Summary>& figures,
                                   const std::vector<double>& percentiles, bool spread) {
    if (!figures)
        return std::nullopt;
    LatencySummary summary;
    if (figures->count == 0)
        return summary;
    summary.minMs = toMs(figures->min);
    summary.meanMs = figures->mean / kNsPerMs;
    if (spread)
        summary.sdMs = figures->stddev / kNsPerMs;
    summary.maxMs = toMs(figures->max);
    for (size_t i = 0; spread && i < percentiles.size(); ++i)
        summary.percentilesMs[percentiles[i]] = toMs(figures->valuesAtPercentiles[i]);
    return summary;
}

} // namespace

std::optional<LatencySummary> summarizeSerialized(const QByteArray& serializedHistogram) {
    const std::vector<double>& percentiles = standardPercentiles();
    // One pass over the stored bytes: decoding each histogram into its bucket
    // array made opening a session of thousands of results take seconds.
    return inMs(engine::Histogram::summarizeSerialized(bytesOf(serializedHistogram), percentiles),
                percentiles, true);
}

std::optional<LatencySummary> serializedHeader(const QByteArray& serializedHistogram) {
    return inMs(engine::Histogram::serializedHeader(bytesOf(serializedHistogram)), {}, false);
}

LatencySummary summarize(const QByteArray& serializedHistogram) {
    if (serializedHistogram.isEmpty())
        return {};
    return summarizeSerialized(serializedHistogram).value_or(LatencySummary{});
}

CpuUsage cpuUsageOf(const engine::CpuWindow& w) {
    CpuUsage usage;
    usage.wallSeconds = w.wallSeconds;
    usage.cpus = w.cpus;
    usage.user = w.user;
    usage.system = w.system;
    usage.irq = w.irq;
    usage.softirq = w.softirq;
    usage.steal = w.steal;
    usage.idle = w.idle;
    usage.serverSeconds = w.serverCpuSeconds;
    usage.frequencyChanged = w.frequencyChanged;
    usage.softirqThreadSeconds = w.softirqThreadSeconds;
    usage.interruptsInProcessTimes = w.interruptsInProcessTimes;
    return usage;
}

PointResult pointResultFromRun(const engine::RunResult& run, const QUuid& targetId, int concurrency,
                               int repetition, const RunEnvironment& environment) {
    PointResult result;
    result.targetId = targetId;
    result.concurrency = concurrency;
    result.repetition = repetition;
    result.source.kind = ResultSource::Kind::Measured;
    result.source.tool = QStringLiteral("loadscope");
    result.source.toolVersion = QStringLiteral(LOADSCOPE_VERSION);
    result.environment = environment;
    if (result.environment.threadPlacement.isEmpty() && !run.threadCpus.empty()) {
        result.environment.threadPlacement =
            (run.pinned ? QStringLiteral("pinned to CPUs ") : QStringLiteral("ran on CPUs ")) +
            cpuList(run.threadCpus);
    }

    result.complete = run.complete;
    result.failed = run.failed;
    result.errors = run.errors;
    result.non2xx = run.non2xx;
    result.keepAlive = run.keepAlive;
    result.statusCodes = run.statusCodes;
    result.bytesTotal = run.bytesTotal;
    result.bytesBody = run.bytesBody;
    result.bytesSent = run.bytesSent;
    result.durationSeconds = run.durationSeconds;
    result.threads = static_cast<int>(run.threads);
    result.serverSoftware = QString::fromStdString(run.serverSoftware);
    result.documentLength = run.documentLength;
    result.hits = run.hits;
    result.misses = run.misses;
    result.clientCpuSeconds = run.clientCpuSeconds;
    if (run.cpu.valid) {
        const engine::CpuWindow& w = run.cpu;
        result.cpu = cpuUsageOf(w);
        judgeNoise(result, kDefaultNoiseThresholdPercent);
    }
    if (run.profile.requested)
        result.profile = summarizeProfile(run.profile);
    result.net = netCounterWindow(run.net);
    result.firstError = QString::fromStdString(run.firstError);
    result.cancelled = run.cancelled;
    result.threadCpus = run.threadCpus;
    result.pinned = run.pinned;
    result.connectionsOpened = run.connectionsOpened;
    DatagramCounts& datagrams = result.datagrams;
    datagrams.answersOutOfOrder = run.answersOutOfOrder;
    datagrams.answersDuplicate = run.answersDuplicate;
    datagrams.answersLate = run.answersLate;
    datagrams.answersStray = run.answersStray;
    datagrams.sent = run.datagramsSent;
    datagrams.sendErrors = run.sendErrors;
    if (run.sinkReported()) {
        datagrams.sinkDatagrams = run.sinkDatagrams;
        datagrams.sinkBytes = run.sinkBytes;
        datagrams.sinkOutOfOrder = run.sinkOutOfOrder;
        datagrams.sinkDuplicates = run.sinkDuplicates;
    }
    for (const auto& [code, count] : run.errorReplyCodes)
        result.errorReplyCodes[QString::fromStdString(code)] = count;
    if (run.offeredRate > 0) {
        // `total` is then from each request's intended start (corrected).
        result.loadModel = LoadModel::FixedRate;
        result.offeredRate = run.offeredRate;
        result.uncorrected = summarize(run.uncorrected);
        result.uncorrectedHistogram = serialized(run.uncorrected);
        result.maxBacklog = run.maxBacklog;
        result.clientSaturated = run.clientSaturated;
    }

    result.total = summarize(run.total);
    result.connect = summarize(run.connect);
    result.waiting = summarize(run.waiting);
    result.processing = summarize(run.processing);
    result.totalHistogram = serialized(run.total);
    result.connectHistogram = serialized(run.connect);
    result.waitingHistogram = serialized(run.waiting);
    result.processingHistogram = serialized(run.processing);
    if (run.tlsHandshakes > 0 || !run.tls.empty()) {
        result.tls = summarize(run.tls);
        result.tlsHistogram = serialized(run.tls);
    }
    result.tlsHandshakes = run.tlsHandshakes;
    result.tlsResumed = run.tlsResumed;
    result.tlsProtocol = QString::fromStdString(run.tlsProtocol);
    result.tlsCipher = QString::fromStdString(run.tlsCipher);
    for (const engine::OperationStats& operation : run.operations) {
        const QString name = QString::fromStdString(operation.name);
        result.perOperation[name] = summarize(operation.latency);
        result.operationCounts[name] = operation.count;
        if (!operation.latency.empty())
            result.perOperationHistograms[name] = serialized(operation.latency);
    }
    return result;
}

} // namespace loadscope::app
