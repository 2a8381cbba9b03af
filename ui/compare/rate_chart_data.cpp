#include "ui/compare/rate_chart_data.h"

#include "ui/common/chart_style.h"

#include <QObject>

namespace loadscope::ui {

namespace {

QColor curveColour(const app::Session& session, const app::RateCurve& curve) {
    const app::Target* target = session.findTarget(curve.targetId);
    return target ? targetColour(*target) : QColor(Qt::gray);
}

} // namespace

QString percentileLabel(double percentile) {
    return QStringLiteral("p%1").arg(percentile, 0, 'g', 4);
}

RateChartData rateChartData(const app::Session& session, const std::vector<app::RateCurve>& curves,
                            double percentile, double objectiveMs) {
    RateChartData data;
    data.title = QObject::tr("Latency %1 against throughput").arg(percentileLabel(percentile));
    data.xTitle = QObject::tr("Achieved requests/s (log)");
    data.yTitle = QObject::tr("Latency %1, corrected (ms, log)").arg(percentileLabel(percentile));
    data.objectiveMs = objectiveMs;
    for (const app::RateCurve& curve : curves) {
        RateLine line;
        line.targetId = curve.targetId;
        line.name = curve.label;
        line.colour = curveColour(session, curve);
        for (const app::RateLevel& level : curve.levels) {
            const std::optional<double> latency = level.corrected(percentile);
            // A log axis has no place for 0.
            if (!latency || *latency <= 0 || level.achievedRate <= 0)
                continue;
            line.points.append(QPointF(level.achievedRate, *latency));
            line.offeredRates.append(level.offeredRate);
        }
        if (const auto knee = app::kneeIndex(curve, objectiveMs)) {
            const app::RateLevel& level = curve.levels[*knee];
            line.kneeRate = level.offeredRate;
            if (const auto latency = level.corrected(percentile);
                latency && *latency > 0 && level.achievedRate > 0)
                line.knee = QPointF(level.achievedRate, *latency);
        }
        data.lines.push_back(std::move(line));
    }
    if (data.lines.empty())
        data.emptyText = QObject::tr("no fixed-rate results");
    return data;
}

ModeBarChartData kneeBarChartData(const app::Session& session,
                                  const std::vector<app::RateCurve>& curves, double objectiveMs) {
    ModeBarChartData data;
    data.title =
        QObject::tr("Knee: highest rate with p99 under %1 ms").arg(formatValue(objectiveMs));
    data.axisTitle = QObject::tr("Offered requests/s");
    for (const app::RateCurve& curve : curves) {
        ModeBar bar;
        bar.targetId = curve.targetId;
        bar.name = curve.label;
        bar.colour = curveColour(session, curve);
        if (const auto knee = app::kneeIndex(curve, objectiveMs)) {
            const app::RateLevel& level = curve.levels[*knee];
            bar.mean = level.offeredRate;
            bar.repetitions = level.repetitions;
            bar.note = QObject::tr("p99 %1 ms").arg(formatValue(level.corrected(99).value_or(0)));
            if (*knee + 1 == curve.levels.size()) {
                // The mode never gave way: its knee is beyond the sweep.
                bar.note += QObject::tr("\n(all levels under)");
                bar.noteStyle = ChartAnnotations::LabelStyle::Muted;
            }
        } else {
            bar.note = QObject::tr("none under\n%1 ms").arg(formatValue(objectiveMs));
            bar.noteStyle = ChartAnnotations::LabelStyle::Muted;
        }
        data.bars.push_back(std::move(bar));
    }
    if (data.bars.empty())
        data.emptyText = QObject::tr("no fixed-rate results");
    return data;
}

} // namespace loadscope::ui
