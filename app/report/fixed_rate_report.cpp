#include "app/report/fixed_rate_report.h"

#include "app/report/ab_report.h"
#include "app/report/result_json.h"
#include "app/session/percentile_export.h"
#include "app/session/point_result.h"

#include <array>

namespace loadscope::app {

namespace {

constexpr double kNsPerMs = 1e6;

QString abTable(const engine::Histogram& h, const char* which) {
    return QStringLiteral("Percentage of the requests served within a certain time (ms), %1\n")
               .arg(QLatin1String(which)) +
           abPercentileRows(h);
}

// wrk2 --latency: the percentile lines, then the detailed spectrum.
QString wrk2Distribution(const engine::Histogram& h, const char* title) {
    QString out =
        QStringLiteral("  Latency Distribution (HdrHistogram - %1)\n").arg(QLatin1String(title));
    constexpr std::array<double, 8> percentiles{50, 75, 90, 99, 99.9, 99.99, 99.999, 100};
    for (double p : percentiles)
        out += QStringLiteral("%1%  %2ms\n")
                   .arg(p, 7, 'f', 3)
                   .arg(double(h.valueAtPercentile(p)) / kNsPerMs, 9, 'f', 3);
    out += QStringLiteral("\n  Detailed Percentile spectrum:\n");
    out += QString::fromLatin1(percentileDistributionText(h));
    out += QStringLiteral("----------------------------------------------------------\n");
    return out;
}

} // namespace

QString formatFixedRateReport(const engine::RunResult& r) {
    if (r.offeredRate <= 0)
        return {};
    QString out = QStringLiteral("\nFixed rate:\n");
    out += QStringLiteral("Offered rate:           %1 requests/s (in total over all connections)\n")
               .arg(r.offeredRate, 0, 'f', 2);
    out += QStringLiteral("Achieved rate:          %1 requests/s (successful responses)\n")
               .arg(r.requestsPerSecond(), 0, 'f', 2);
    out += QStringLiteral("Largest backlog:        %1 requests (due, not yet sent)\n")
               .arg(r.maxBacklog);
    out += QStringLiteral("Latency above is from each request's intended start (corrected for "
                          "coordinated omission);\nuncorrected is from its actual send.\n\n");
    out += abTable(r.total, "corrected");
    out += QLatin1Char('\n');
    out += abTable(r.uncorrected, "uncorrected");
    out += QLatin1Char('\n');
    out += wrk2Distribution(r.total, "Recorded Latency");
    out += QLatin1Char('\n');
    out += wrk2Distribution(r.uncorrected, "Uncorrected Latency (measured without taking "
                                           "delayed starts into account)");
    return out;
}

void addFixedRateJson(QJsonObject& json, const PointResult& result) {
    if (result.loadModel != LoadModel::FixedRate || !result.offeredRate)
        return;
    json[QStringLiteral("offered_rate")] = *result.offeredRate;
    json[QStringLiteral("achieved_rate")] = result.requestsPerSecond();
    json[QStringLiteral("max_backlog")] = double(result.maxBacklog);
    json[QStringLiteral("client_saturated")] = result.clientSaturated;
    // The uncorrected latency through the same schema as latency_ms, so
    // that both objects have the same keys and formats by construction.
    PointResult uncorrected;
    uncorrected.total = result.uncorrected;
    const QJsonObject written = cliResultJson(uncorrected, CliResultContext{});
    json[QStringLiteral("latency_uncorrected_ms")] = written.value(QStringLiteral("latency_ms"));
}

QString scheduleWarning(const engine::RunResult& result) {
    if (!result.clientSaturated)
        return {};
    return QStringLiteral("warning: the load generator could not keep the schedule of %1 "
                          "requests/s (its loop ran late or its CPU was saturated); latency and "
                          "the achieved rate may be the client's, not the server's")
        .arg(result.offeredRate, 0, 'f', 0);
}

} // namespace loadscope::app
