#include "app/session/metric.h"

#include <algorithm>

namespace loadscope::app {

namespace {

MetricInfo info(Metric metric, const char* id, const char* label, const char* unit,
                bool higherIsBetter, const char* definition) {
    return MetricInfo{metric,
                      QString::fromLatin1(id),
                      QString::fromLatin1(label),
                      QString::fromLatin1(unit),
                      higherIsBetter,
                      QString::fromUtf8(definition)};
}

std::optional<double> positive(double value) {
    return value > 0 ? std::optional<double>(value) : std::nullopt;
}

} // namespace

const std::vector<MetricInfo>& metricRegistry() {
    // Ids are CSV column names: never change one, add new ones instead.
    static const std::vector<MetricInfo> registry{
        info(Metric::RequestsPerSecond, "requests_per_second", "Requests/s", "req/s", true,
             "Complete requests divided by the measured time, as ab's \"Requests per second\". "
             "For memcached the operations per second, for TCP request/response the "
             "transactions per second."),
        info(Metric::TransferRate, "transfer_rate_kib_s", "Transfer rate", "KiB/s", true,
             "Bytes received (headers and bodies) per second of measured time, in KiB/s as ab "
             "prints \"Transfer rate\" in Kbytes/sec."),
        info(Metric::Throughput, "throughput_mbit_s", "Throughput", "Mbit/s", true,
             "Bytes sent and received per second in 10^6 bit/s; for tcp-stream the send "
             "throughput netperf TCP_STREAM reports."),
        info(Metric::TimePerRequest, "time_per_request_ms", "Time per request", "ms", false,
             "Concurrency x measured time / complete requests: ab's first \"Time per "
             "request\" line, the mean time one client waits per request."),
        info(Metric::LatencyMean, "latency_mean_ms", "Latency mean", "ms", false,
             "Mean total time per request, from the start of the request (its connect, when "
             "it opened a connection) to the last byte of the response."),
        info(Metric::LatencyP50, "latency_p50_ms", "Latency p50", "ms", false,
             "Median total time per request: half of the requests took at most this long."),
        info(Metric::LatencyP90, "latency_p90_ms", "Latency p90", "ms", false,
             "90% of the requests took at most this long."),
        info(Metric::LatencyP99, "latency_p99_ms", "Latency p99", "ms", false,
             "99% of the requests took at most this long."),
        info(Metric::LatencyP999, "latency_p99_9_ms", "Latency p99.9", "ms", false,
             "99.9% of the requests took at most this long: one in a thousand took longer."),
        info(Metric::Failed, "failed", "Failed", "requests", false,
             "Requests that failed (connect, receive, length, exceptions, write, timeout), "
             "counted as ab counts \"Failed requests\"."),
        info(Metric::ConnectMean, "connect_mean_ms", "Connect time mean", "ms", false,
             "Mean time to establish the connection per request, 0 for requests on a reused "
             "connection, as ab's \"Connect\" row."),
    };
    return registry;
}

const MetricInfo& metricInfo(Metric metric) {
    const auto& registry = metricRegistry();
    const auto found = std::find_if(registry.begin(), registry.end(),
                                    [metric](const MetricInfo& m) { return m.metric == metric; });
    return found == registry.end() ? registry.front() : *found;
}

std::optional<Metric> metricFromId(QStringView id) {
    for (const MetricInfo& m : metricRegistry()) {
        if (m.id == id)
            return m.metric;
    }
    return std::nullopt;
}

QString metricLabel(Metric metric, TargetProtocol protocol) {
    if (metric == Metric::RequestsPerSecond) {
        if (protocol == TargetProtocol::Memcache)
            return QStringLiteral("Ops/s");
        if (protocol == TargetProtocol::TcpRr)
            return QStringLiteral("Transactions/s");
    }
    return metricInfo(metric).label;
}

QString metricUnit(Metric metric, TargetProtocol protocol) {
    if (metric == Metric::RequestsPerSecond) {
        if (protocol == TargetProtocol::Memcache)
            return QStringLiteral("ops/s");
        if (protocol == TargetProtocol::TcpRr)
            return QStringLiteral("trans/s");
    }
    return metricInfo(metric).unit;
}

bool metricApplies(Metric metric, TargetProtocol protocol) {
    if (protocol == TargetProtocol::TcpStream)
        return metric == Metric::Throughput || metric == Metric::Failed;
    return metric != Metric::Throughput;
}

std::vector<Metric> metricsFor(TargetProtocol protocol) {
    std::vector<Metric> metrics;
    for (const MetricInfo& m : metricRegistry()) {
        if (metricApplies(m.metric, protocol))
            metrics.push_back(m.metric);
    }
    return metrics;
}

Metric primaryMetric(TargetProtocol protocol) {
    return protocol == TargetProtocol::TcpStream ? Metric::Throughput : Metric::RequestsPerSecond;
}

std::optional<double> metricValue(const PointResult& result, Metric metric) {
    // Without a measured time (or a rate printed by the tool) there is no
    // rate at all, which is not the same as a rate of zero.
    const bool timed = result.durationSeconds > 0;
    switch (metric) {
    case Metric::RequestsPerSecond:
        if (result.reportedRequestsPerSecond)
            return result.reportedRequestsPerSecond;
        return timed ? std::optional<double>(result.requestsPerSecond()) : std::nullopt;
    case Metric::TransferRate:
        if (result.reportedTransferKiBps)
            return result.reportedTransferKiBps;
        return timed ? std::optional<double>(result.transferRateKiBps()) : std::nullopt;
    case Metric::Throughput:
        if (result.reportedThroughputMbitps)
            return result.reportedThroughputMbitps;
        return timed ? std::optional<double>(result.throughputMbitps()) : std::nullopt;
    case Metric::TimePerRequest:
        return positive(result.timePerRequestMs());
    case Metric::LatencyMean:
        return result.total.meanMs;
    case Metric::LatencyP50:
        return result.total.percentile(50);
    case Metric::LatencyP90:
        return result.total.percentile(90);
    case Metric::LatencyP99:
        return result.total.percentile(99);
    case Metric::LatencyP999:
        return result.total.percentile(99.9);
    case Metric::Failed:
        return static_cast<double>(result.failed);
    case Metric::ConnectMean:
        return result.connect.meanMs;
    }
    return std::nullopt;
}

} // namespace loadscope::app
