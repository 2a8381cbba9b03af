#pragma once

#include "app/session/point_result.h"
#include "app/session/target.h"
#include "engine/cpu_profile.h"

#include <QString>
#include <optional>
#include <vector>

namespace loadscope::app {

// The metrics a comparison is made of. Every view, chart and CSV names them
// through the registry below, so a column, an axis and a tooltip always agree.
enum class Metric {
    RequestsPerSecond,
    TransferRate,
    Throughput,
    TimePerRequest,
    LatencyMean,
    LatencyP50,
    LatencyP90,
    LatencyP99,
    LatencyP999,
    Failed,
    FailedShare,
    ConnectMean,
    TlsMean, // https only: per handshake, not per request
    // Fixed rate only: from the actual send, beside the corrected LatencyP*.
    UncorrectedP50,
    UncorrectedP99,
    UncorrectedP999,
    // Where the CPU went (cpu_usage.h), per successful request and as the machine's other load.
    ServerCpuPerRequest,
    SoftirqPerRequest,
    ClientCpuPerRequest,
    OtherLoad,
    // udp-stream: what the sinks received, and the share of the messages they never got.
    DeliveredThroughput,
    DatagramLoss,
    // A CPU profile's figures (cpu_profile_summary.h), µs per request: by
    // process role, in engine::ProcessRole's order, then by kernel path, in
    // engine::CpuPath's.
    ProfileClient,
    ProfileServer,
    ProfileRelay,
    ProfileOther,
    ProfileKernel,
    ProfileUser,
    ProfileTcpIp,
    ProfileSocket,
    ProfileCopy,
    ProfileConntrack,
    ProfileNat,
    ProfileNftables,
    ProfileBridge,
    ProfileVeth,
    ProfileMacvlan,
    ProfileOvs,
    ProfileTap,
    ProfileSoftirq,
    ProfileScheduler,
    ProfileOtherKernel,
};

// The profile's metric of a role or a path, and back.
Metric profileRoleMetric(engine::ProcessRole role);
Metric profilePathMetric(engine::CpuPath path);
std::optional<engine::ProcessRole> profileRoleOf(Metric metric);
std::optional<engine::CpuPath> profilePathOf(Metric metric);
bool isProfileMetric(Metric metric);

struct ResultField;

struct MetricInfo {
    Metric metric;
    QString id;    // snake_case, stable: the result field's summaryMetric (and CSV column)
    QString label; // column header and chart axis: "Latency p99"
    QString unit;  // the field's unit: "req/s", "KiB/s", "Mbit/s", "ms", "requests", "%"
    bool higherIsBetter = true;
    QString definition;                 // one or two sentences for tooltips and the README
    const ResultField* field = nullptr; // in result_schema.h: name, unit and formula
};

// Every metric in display order.
const std::vector<MetricInfo>& metricRegistry();
const MetricInfo& metricInfo(Metric metric);
std::optional<Metric> metricFromId(QStringView id);

// The label in the protocol's own words: "Requests/s" is "Ops/s" for
// memcached and "Transactions/s" for TCP request/response.
QString metricLabel(Metric metric, TargetProtocol protocol);
QString metricUnit(Metric metric, TargetProtocol protocol);
// Whether the metric means something for the protocol (a stream has no
// per-request latency; throughput is the stream's figure).
bool metricApplies(Metric metric, TargetProtocol protocol);
// The metric applicable to `protocol`, in registry order.
std::vector<Metric> metricsFor(TargetProtocol protocol);
// The figure a deployment mode is judged by first: requests/s, throughput
// for tcp-stream, the delivered throughput for udp-stream.
Metric primaryMetric(TargetProtocol protocol);

// The smallest difference the figure resolves, in its unit: 0.001 ms (the
// latency histogram's 1 µs) for times, one request for counts, and the
// table's three decimals for rates and shares. A change relative to a
// baseline below it is rounding, not a change, and is not shown.
double metricResolution(Metric metric);

// The metric's value for one result (its result field's formula), or nullopt
// when the result does not carry it (no measured time, no latency figures in
// an imported report).
std::optional<double> metricValue(const PointResult& result, Metric metric);

} // namespace loadscope::app
