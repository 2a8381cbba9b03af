#include "app/session/csv_export.h"

#include "app/session/capacity_comparison.h"
#include "app/session/result_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

namespace loadscope::app {

namespace {

QString optionalNumber(const std::optional<double>& value) {
    return value ? csvNumber(*value) : QString();
}

QString boolText(bool value) {
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

// A field as the CSV writes it: an absent figure is an empty field.
QString csvText(const FieldValue& value) {
    struct Visitor {
        QString operator()(std::monostate) const { return {}; }
        QString operator()(uint64_t count) const { return QString::number(count); }
        QString operator()(int64_t integer) const { return QString::number(integer); }
        QString operator()(double real) const { return csvNumber(real); }
        QString operator()(const QString& text) const { return text; }
        QString operator()(bool flag) const { return boolText(flag); }
        QString operator()(const QJsonValue&) const { return {}; }
    };
    return std::visit(Visitor{}, value);
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
    QStringList columns{QStringLiteral("target"), QStringLiteral("target_id"),
                        QStringLiteral("mode"), QStringLiteral("protocol"),
                        QStringLiteral("endpoint")};
    for (const ResultField& field : resultSchema())
        if (!field.csvColumn.isEmpty())
            columns << field.csvColumn;
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

    std::vector<const ResultField*> fields;
    for (const ResultField& field : resultSchema())
        if (!field.csvColumn.isEmpty())
            fields.push_back(&field);
    QByteArray csv = csvRecord(resultsCsvColumns());
    for (const PointResult* r : ordered) {
        const Target* target = session.findTarget(r->targetId);
        if (!target)
            continue;
        QStringList row{
            target->displayName(), target->id.toString(QUuid::WithoutBraces),
            target->modeLabel(),   targetProtocolId(target->protocol),
            target->endpoint(),
        };
        for (const ResultField* field : fields)
            row << csvText(field->value(*r));
        csv += csvRecord(row);
    }
    return csv;
}

namespace {

// A capacity plan's searches (capacity_comparison.h): one row per target.
QByteArray capacitySummaryRows(const Session& session) {
    const CapacityComparison capacity(session);
    QByteArray csv;
    for (const CapacityRow& row : capacity.rows()) {
        const Target* target = session.findTarget(row.targetId);
        if (!target || row.figures.samples.empty())
            continue;
        const SampleStatistics& s = row.figures.statistics;
        QString significant;
        if (row.figures.verdict == Verdict::Significant ||
            row.figures.verdict == Verdict::WithinNoise)
            significant = boolText(row.figures.verdict == Verdict::Significant);
        csv += csvRecord({
            target->displayName(),
            target->id.toString(QUuid::WithoutBraces),
            target->modeLabel(),
            targetProtocolId(target->protocol),
            QString::number(row.figures.concurrency),
            QStringLiteral("capacity"),
            metricUnit(Metric::RequestsPerSecond, target->protocol),
            QString::number(s.n),
            csvNumber(s.mean),
            optionalNumber(s.sd),
            optionalNumber(s.ci95Low),
            optionalNumber(s.ci95High),
            optionalNumber(row.figures.vsBaselinePercent),
            optionalNumber(row.figures.pValue),
            significant,
            verdictId(row.figures.verdict),
            boolText(false),
            QStringLiteral("loadscope"),
            QStringLiteral("capacity at ") + objectiveAsciiText(capacity.objective()),
            QString(),
        });
    }
    return csv;
}

} // namespace

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
        QStringLiteral("tool"),
        QStringLiteral("load_model"),
        QStringLiteral("offered_rate"),
        // Appended: how many of the row's repetitions had packets lost or refused by the
        // network stack, and the first one's notes (net_counters.h).
        QStringLiteral("net_marked"),
        QStringLiteral("net_note"),
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
            comparison.series()[row.series].tool,
            comparison.series()[row.series].loadModel,
            optionalNumber(comparison.series()[row.series].offeredRate),
            QString::number(row.netMarked),
            row.netNote,
        });
    }
    csv += capacitySummaryRows(session);
    return csv;
}

} // namespace loadscope::app
