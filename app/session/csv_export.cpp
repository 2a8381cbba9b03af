#include "app/session/csv_export.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

namespace loadscope::app {

namespace {

QString percentileSuffix(double percentile) {
    return QString::number(percentile, 'g', 12).replace(QLatin1Char('.'), QLatin1Char('_'));
}

QString optionalNumber(const std::optional<double>& value) {
    return value ? csvNumber(*value) : QString();
}

QString boolText(bool value) {
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

QString count(uint64_t value) {
    return QString::number(value);
}

QString metricField(const PointResult& result, Metric metric) {
    return optionalNumber(metricValue(result, metric));
}

} // namespace

QString csvField(const QString& field) {
    const bool needsQuotes = field.contains(QLatin1Char(',')) || field.contains(QLatin1Char('"')) ||
                             field.contains(QLatin1Char('\r')) || field.contains(QLatin1Char('\n'));
    if (!needsQuotes)
        return field;
    QString quoted = field;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QByteArray csvRecord(const QStringList& fields) {
    QStringList quoted;
    quoted.reserve(fields.size());
    for (const QString& field : fields)
        quoted << csvField(field);
    return quoted.join(QLatin1Char(',')).toUtf8() + "\r\n";
}

QString csvNumber(double value) {
    if (!std::isfinite(value))
        return {};
    if (value == 0)
        return QStringLiteral("0"); // not "-0"
    char buffer[400];
    const auto [end, error] =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
    if (error != std::errc())
        return QString::number(value, 'g', 17);
    return QString::fromLatin1(buffer, static_cast<qsizetype>(end - buffer));
}

QStringList resultsCsvColumns() {
    QStringList columns{
        QStringLiteral("target"),
        QStringLiteral("target_id"),
        QStringLiteral("mode"),
        QStringLiteral("protocol"),
        QStringLiteral("endpoint"),
        QStringLiteral("concurrency"),
        QStringLiteral("repetition"),
        QStringLiteral("source"),
        QStringLiteral("tool"),
        QStringLiteral("tool_version"),
        QStringLiteral("started_at"),
        QStringLiteral("host_name"),
        QStringLiteral("thread_placement"),
        QStringLiteral("cancelled"),
        QStringLiteral("duration_s"),
        QStringLiteral("threads"),
        QStringLiteral("complete"),
        QStringLiteral("failed"),
    };
    for (size_t i = 0; i < engine::kErrorClassCount; ++i) {
        const std::string_view name = engine::errorClassName(static_cast<engine::ErrorClass>(i));
        columns << QStringLiteral("failed_") +
                       QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
    }
    columns << QStringLiteral("non_2xx") << QStringLiteral("keep_alive")
            << QStringLiteral("bytes_total") << QStringLiteral("bytes_body")
            << QStringLiteral("bytes_sent") << QStringLiteral("hits") << QStringLiteral("misses")
            << QStringLiteral("client_cpu_s") << metricInfo(Metric::RequestsPerSecond).id
            << metricInfo(Metric::TransferRate).id << metricInfo(Metric::Throughput).id
            << metricInfo(Metric::TimePerRequest).id << QStringLiteral("time_per_request_across_ms")
            << QStringLiteral("latency_min_ms") << metricInfo(Metric::LatencyMean).id
            << QStringLiteral("latency_sd_ms") << QStringLiteral("latency_max_ms");
    for (double percentile : standardPercentiles())
        columns << QStringLiteral("latency_p") + percentileSuffix(percentile) +
                       QStringLiteral("_ms");
    columns << metricInfo(Metric::ConnectMean).id << QStringLiteral("waiting_mean_ms")
            << QStringLiteral("processing_mean_ms") << QStringLiteral("server_software")
            << QStringLiteral("document_length") << QStringLiteral("first_error");
    return columns;
}

QByteArray resultsCsv(const Session& session) {
    std::vector<const PointResult*> ordered;
    for (const PointResult& result : session.results)
        ordered.push_back(&result);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&session](const PointResult* a, const PointResult* b) {
                         const int targetA = session.targetIndex(a->targetId);
                         const int targetB = session.targetIndex(b->targetId);
                         return std::tie(targetA, a->concurrency, a->repetition) <
                                std::tie(targetB, b->concurrency, b->repetition);
                     });

    QByteArray csv = csvRecord(resultsCsvColumns());
    for (const PointResult* r : ordered) {
        const Target* target = session.findTarget(r->targetId);
        if (!target)
            continue;
        const QDateTime& startedAt = r->environment.startedAt;
        QStringList row{
            target->displayName(),
            target->id.toString(QUuid::WithoutBraces),
            target->modeLabel(),
            targetProtocolId(target->protocol),
            target->endpoint(),
            QString::number(r->concurrency),
            QString::number(r->repetition),
            r->source.kind == ResultSource::Kind::Imported ? QStringLiteral("imported")
                                                           : QStringLiteral("measured"),
            r->source.tool,
            r->source.toolVersion,
            startedAt.isValid()
                ? startedAt.toOffsetFromUtc(startedAt.offsetFromUtc()).toString(Qt::ISODateWithMs)
                : QString(),
            r->environment.hostName,
            r->environment.threadPlacement,
            boolText(r->cancelled),
            csvNumber(r->durationSeconds),
            QString::number(r->threads),
            count(r->complete),
            count(r->failed),
        };
        for (uint64_t errors : r->errors)
            row << count(errors);
        row << count(r->non2xx) << count(r->keepAlive) << count(r->bytesTotal)
            << count(r->bytesBody) << count(r->bytesSent) << count(r->hits) << count(r->misses)
            << csvNumber(r->clientCpuSeconds) << metricField(*r, Metric::RequestsPerSecond)
            << metricField(*r, Metric::TransferRate) << metricField(*r, Metric::Throughput)
            << metricField(*r, Metric::TimePerRequest)
            << (r->timePerRequestAcrossMs() > 0 ? csvNumber(r->timePerRequestAcrossMs())
                                                : QString())
            << optionalNumber(r->total.minMs) << optionalNumber(r->total.meanMs)
            << optionalNumber(r->total.sdMs) << optionalNumber(r->total.maxMs);
        for (double percentile : standardPercentiles())
            row << optionalNumber(r->total.percentile(percentile));
        row << optionalNumber(r->connect.meanMs) << optionalNumber(r->waiting.meanMs)
            << optionalNumber(r->processing.meanMs) << r->serverSoftware
            << (r->documentLength >= 0 ? QString::number(r->documentLength) : QString())
            << r->firstError;
        csv += csvRecord(row);
    }
    return csv;
}

QStringList summaryCsvColumns() {
    return {
        QStringLiteral("target"),
        QStringLiteral("target_id"),
        QStringLiteral("mode"),
        QStringLiteral("protocol"),
        QStringLiteral("concurrency"),
        QStringLiteral("metric"),
        QStringLiteral("unit"),
        QStringLiteral("n"),
        QStringLiteral("mean"),
        QStringLiteral("sd"),
        QStringLiteral("ci95_low"),
        QStringLiteral("ci95_high"),
        QStringLiteral("vs_baseline_percent"),
        QStringLiteral("p_value"),
        QStringLiteral("significant"),
        QStringLiteral("verdict"),
        QStringLiteral("imported"),
    };
}

QByteArray summaryCsv(const Session& session, const Comparison& comparison) {
    QByteArray csv = csvRecord(summaryCsvColumns());
    for (const ComparisonRow& row : comparison.rows()) {
        const Target* target = session.findTarget(row.targetId);
        if (!target)
            continue;
        const SampleStatistics& s = row.statistics;
        QString significant;
        if (row.verdict == Verdict::Significant || row.verdict == Verdict::WithinNoise)
            significant = boolText(row.verdict == Verdict::Significant);
        csv += csvRecord({
            target->displayName(),
            target->id.toString(QUuid::WithoutBraces),
            target->modeLabel(),
            targetProtocolId(target->protocol),
            QString::number(row.concurrency),
            metricInfo(row.metric).id,
            metricUnit(row.metric, target->protocol),
            QString::number(s.n),
            csvNumber(s.mean),
            optionalNumber(s.sd),
            optionalNumber(s.ci95Low),
            optionalNumber(s.ci95High),
            optionalNumber(row.vsBaselinePercent),
            optionalNumber(row.pValue),
            significant,
            verdictId(row.verdict),
            boolText(row.imported),
        });
    }
    return csv;
}

} // namespace loadscope::app
