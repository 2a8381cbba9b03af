#include "app/session/metric.h"

#include "app/session/result_schema.h"

#include <algorithm>

namespace loadscope::app {

namespace {

// The id and unit are the result schema's: a metric is a result field the
// summary CSV compares.
MetricInfo info(Metric metric, const char* fieldId, const char* label, bool higherIsBetter,
                const char* definition) {
    const ResultField* field = resultField(QString::fromLatin1(fieldId));
    Q_ASSERT(field && field->summaryMetric == QLatin1String(fieldId));
    return MetricInfo{metric,      field->summaryMetric, QString::fromLatin1(label),
                      field->unit, higherIsBetter,       QString::fromUtf8(definition),
                      field};
}

static_assert(int(Metric::ProfileServer) - int(Metric::ProfileClient) ==
              int(engine::ProcessRole::Server));
static_assert(int(Metric::ProfileUser) - int(Metric::ProfileClient) ==
              int(engine::kProcessRoleCount));
static_assert(int(Metric::ProfileOtherKernel) - int(Metric::ProfileUser) ==
              int(engine::CpuPath::OtherKernel));

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

// Where the CPU went, by role and by path: the profile's figures, defined
// once here for each role and path (DESIGN.md "Metrics").
void addProfileMetrics(std::vector<MetricInfo>& registry) {
    const char* roleMeaning[] = {
        "Loadscope itself (its load threads; the profile's own sampler thread is left out)",
        "the target's server (its process and children, its cgroup, or the lab's server)",
        "userland relays between client and server (docker-proxy, the embedded proxy, "
        "slirp4netns, ovs-vswitchd)",
        "every other process: the machine's other load",
        "no process: interrupts and softirqs on an idle CPU, kernel threads (ksoftirqd, kworker)",
    };
    for (size_t i = 0; i < engine::kProcessRoleCount; ++i) {
        const auto role = engine::ProcessRole(i);
        const QByteArray fieldId = QStringLiteral("profile_%1_us_per_request")
                                       .arg(latin1(engine::processRoleId(role)))
                                       .toLatin1();
        MetricInfo m = info(profileRoleMetric(role), fieldId.constData(), "", false, "");
        m.label =
            QStringLiteral("CPU profile: %1").arg(latin1(engine::processRoleLabel(role)).toLower());
        m.definition =
            QStringLiteral("CPU time of %1, user and kernel, per successful request in "
                           "microseconds, from the point's CPU profile (every CPU sampled at 1 kHz "
                           "over the measured window).")
                .arg(QString::fromUtf8(roleMeaning[i]));
        registry.push_back(m);
    }
    for (size_t i = 0; i < engine::kCpuPathCount; ++i) {
        const auto path = engine::CpuPath(i);
        const QByteArray fieldId = QStringLiteral("profile_%1_us_per_request")
                                       .arg(latin1(engine::cpuPathId(path)))
                                       .toLatin1();
        MetricInfo m = info(profilePathMetric(path), fieldId.constData(), "", false, "");
        m.label = QStringLiteral("CPU path: %1").arg(latin1(engine::cpuPathLabel(path)));
        m.definition =
            path == engine::CpuPath::User
                ? QStringLiteral("CPU time in user space of the client, the server and the "
                                 "relays, per successful request in microseconds, from the "
                                 "point's CPU profile (other load is left out).")
                : QStringLiteral("Kernel CPU time on the %1 path, of the client, the server, the "
                                 "relays and the interrupts (other load left out), per "
                                 "successful request in microseconds, from the point's CPU "
                                 "profile: a sample's path is that of the first function from its "
                                 "call chain's leaf that a rule names.")
                      .arg(latin1(engine::cpuPathLabel(path)));
        registry.push_back(m);
    }
}

} // namespace

Metric profileRoleMetric(engine::ProcessRole role) {
    return Metric(int(Metric::ProfileClient) + int(role));
}

Metric profilePathMetric(engine::CpuPath path) {
    return Metric(int(Metric::ProfileUser) + int(path));
}

std::optional<engine::ProcessRole> profileRoleOf(Metric metric) {
    const int i = int(metric) - int(Metric::ProfileClient);
    if (i < 0 || i >= int(engine::kProcessRoleCount))
        return std::nullopt;
    return engine::ProcessRole(i);
}

std::optional<engine::CpuPath> profilePathOf(Metric metric) {
    const int i = int(metric) - int(Metric::ProfileUser);
    if (i < 0 || i >= int(engine::kCpuPathCount))
        return std::nullopt;
    return engine::CpuPath(i);
}

bool isProfileMetric(Metric metric) {
    return profileRoleOf(metric) || profilePathOf(metric);
}

const std::vector<MetricInfo>& metricRegistry() {
    // Ids are CSV column names: never change one, add new ones instead.
    static const std::vector<MetricInfo> registry = [] {
        std::vector<MetricInfo> metrics{
            info(Metric::RequestsPerSecond, "requests_per_second", "Requests/s", true,
                 "Successful responses (requests that ended minus failed ones; non-2xx included) "
                 "divided by the measured time, as ab's \"Requests per second\" without failures. "
                 "For memcached the operations per second, for TCP request/response the "
                 "transactions per second."),
            info(Metric::TransferRate, "transfer_rate_kib_s", "Transfer rate", true,
                 "Bytes received (headers and bodies) per second of measured time, in KiB/s as ab "
                 "prints \"Transfer rate\" in Kbytes/sec."),
            info(Metric::Throughput, "throughput_mbit_s", "Throughput", true,
                 "Bytes sent and received per second in 10^6 bit/s; for tcp-stream the send "
                 "throughput netperf TCP_STREAM reports."),
            info(Metric::TimePerRequest, "time_per_request_ms", "Time per request", false,
                 "Concurrency x measured time / successful responses: ab's first \"Time per "
                 "request\" line, the mean time one client waits per successful request."),
            info(Metric::LatencyMean, "latency_mean_ms", "Latency mean", false,
                 "Mean total time per request, from the start of the request (its connect, when "
                 "it opened a connection) to the last byte of the response."),
            info(Metric::LatencyP50, "latency_p50_ms", "Latency p50", false,
                 "Median total time per request: half of the requests took at most this long."),
            info(Metric::LatencyP90, "latency_p90_ms", "Latency p90", false,
                 "90% of the requests took at most this long."),
            info(Metric::LatencyP99, "latency_p99_ms", "Latency p99", false,
                 "99% of the requests took at most this long."),
            info(Metric::LatencyP999, "latency_p99_9_ms", "Latency p99.9", false,
                 "99.9% of the requests took at most this long: one in a thousand took longer."),
            info(Metric::Failed, "failed", "Failed", false,
                 "Requests that failed (connect, receive, length, exceptions, write, timeout), "
                 "counted as ab counts \"Failed requests\"."),
            info(Metric::FailedShare, "failed_share", "Failed share", false,
                 "Failed requests as a percentage of the requests that ended: the rate of "
                 "failures, comparable across runs of different lengths."),
            info(Metric::ConnectMean, "connect_mean_ms", "Connect time mean", false,
                 "Mean time to establish the connection per request, 0 for requests on a reused "
                 "connection, as ab's \"Connect\" row."),
            info(Metric::TlsMean, "tls_mean_ms", "TLS handshake mean", false,
                 "https: mean time of a connection's TLS handshake, from the end of its TCP "
                 "connect to the end of the handshake, one sample per handshake (resumed ones "
                 "included: tls_resumed_ratio says how many were)."),
            info(Metric::UncorrectedP50, "latency_uncorrected_p50_ms", "Uncorrected p50", false,
                 "Fixed rate: median time from the actual send of a request to its response, "
                 "not corrected for coordinated omission (wrk2's \"Uncorrected Latency\"); the "
                 "Latency figures of a fixed-rate result count from the intended start."),
            info(Metric::UncorrectedP99, "latency_uncorrected_p99_ms", "Uncorrected p99", false,
                 "Fixed rate: 99% of the requests took at most this long from their actual send."),
            info(Metric::UncorrectedP999, "latency_uncorrected_p99_9_ms", "Uncorrected p99.9",
                 false,
                 "Fixed rate: 99.9% of the requests took at most this long from their actual "
                 "send."),
            info(
                Metric::ServerCpuPerRequest, "server_cpu_us_per_request", "Server CPU per request",
                false,
                "CPU time (user + system) of the local server over the measured window divided by "
                "the successful responses, in microseconds: netperf's \"service demand\". Known "
                "when the server is a given PID or cgroup, or an embedded server of this process."),
            info(Metric::SoftirqPerRequest, "softirq_us_per_request", "Softirq per request", false,
                 "The machine's softirq time (where the kernel does network receive work, NAT and "
                 "bridging) over the measured window divided by the successful responses, in "
                 "microseconds."),
            info(Metric::ClientCpuPerRequest, "client_cpu_us_per_request", "Client CPU per request",
                 false,
                 "CPU time of Loadscope's worker threads over the measured window divided by the "
                 "successful responses, in microseconds."),
            info(Metric::OtherLoad, "other_load_percent", "Other load", false,
                 "CPU the machine spent on neither the client nor the server during the point "
                 "(user + system + irq time minus theirs), as a percentage of all its CPUs. Above "
                 "the noise threshold the point is marked noisy."),
            info(Metric::DeliveredThroughput, "delivered_mbit_s", "Delivered throughput", true,
                 "udp-stream: the bytes the sinks received in 10^6 bit/s, netperf UDP_STREAM's "
                 "receive side; Loadscope's sink says what it received of the measured stretch."),
            info(Metric::DatagramLoss, "datagram_loss_percent", "Datagram loss", false,
                 "udp-stream: the messages sent in the measured stretch that the sinks never "
                 "received, as a percentage of those sent."),
        };
        addProfileMetrics(metrics);
        return metrics;
    }();
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
        if (protocol == TargetProtocol::Memcache || protocol == TargetProtocol::Redis)
            return QStringLiteral("Ops/s");
        if (protocol == TargetProtocol::TcpRr || protocol == TargetProtocol::UdpRr)
            return QStringLiteral("Transactions/s");
    }
    return metricInfo(metric).label;
}

QString metricUnit(Metric metric, TargetProtocol protocol) {
    if (metric == Metric::RequestsPerSecond) {
        if (protocol == TargetProtocol::Memcache || protocol == TargetProtocol::Redis)
            return QStringLiteral("ops/s");
        if (protocol == TargetProtocol::TcpRr || protocol == TargetProtocol::UdpRr)
            return QStringLiteral("trans/s");
    }
    return metricInfo(metric).unit;
}

bool metricApplies(Metric metric, TargetProtocol protocol) {
    const bool stream = metric == Metric::Throughput || metric == Metric::Failed ||
                        metric == Metric::FailedShare || metric == Metric::OtherLoad;
    if (protocol == TargetProtocol::TcpStream)
        return stream;
    if (protocol == TargetProtocol::UdpStream)
        return stream || metric == Metric::DeliveredThroughput || metric == Metric::DatagramLoss;
    // A UDP request has no connect and no handshake.
    if (protocol == TargetProtocol::UdpRr &&
        (metric == Metric::ConnectMean || metric == Metric::TlsMean))
        return false;
    return metric != Metric::Throughput && metric != Metric::DeliveredThroughput &&
           metric != Metric::DatagramLoss;
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
    if (protocol == TargetProtocol::TcpStream)
        return Metric::Throughput;
    if (protocol == TargetProtocol::UdpStream)
        return Metric::DeliveredThroughput;
    return Metric::RequestsPerSecond;
}

double metricResolution(Metric metric) {
    // By unit, so that metrics added later get a resolution too.
    const QString& unit = metricInfo(metric).unit;
    if (unit == u"requests")
        return 1;
    return 0.001;
}

std::optional<double> metricValue(const PointResult& result, Metric metric) {
    return fieldNumber(*metricInfo(metric).field, result);
}

} // namespace loadscope::app
