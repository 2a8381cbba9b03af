#pragma once

#include "app/session/comparison.h"
#include "app/session/metric.h"
#include "app/session/session.h"
#include "app/session/target.h"
#include "app/stats/latency_distribution.h"
#include "ui/common/chart_annotations.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QUuid>
#include <map>
#include <optional>
#include <vector>

// What each Compare chart shows, read from the comparison table (and, for
// the latency distribution, from app::latencyDistributions()). Plain values,
// so the charts only draw and the tests can check what is drawn against the
// table. Nothing here computes a statistic: it picks and labels figures.
namespace loadscope::ui {

struct ModeBar {
    QUuid targetId;
    QString name;
    QColor colour;
    double mean = 0;
    std::optional<double> ciLow; // 95% confidence interval over repetitions
    std::optional<double> ciHigh;
    int repetitions = 0;
    // "−17.3% vs host", "baseline"; a second line says why a difference is
    // not to be trusted ("(within noise)").
    QString note;
    ChartAnnotations::LabelStyle noteStyle = ChartAnnotations::LabelStyle::Plain;
};

struct ModeBarChartData {
    QString title;     // "Requests/s at c=100"
    QString axisTitle; // "Requests/s (req/s)"
    QString emptyText; // shown instead of bars when there are none
    std::vector<ModeBar> bars;
};

struct ModeLine {
    QUuid targetId;
    QString name;
    QColor colour;
    QList<QPointF> points;
    // Vertical 95% intervals at x, as (x, low, high); may be empty.
    struct Range {
        double x = 0;
        double low = 0;
        double high = 0;
    };
    QList<Range> ranges;
};

struct ModeLineChartData {
    QString title;
    QString xTitle;
    QString yTitle;
    QString emptyText;
    std::vector<ModeLine> lines;
};

// Targets of `protocol` that have rows in the comparison, in session order.
std::vector<const app::Target*> comparedTargets(const app::Session& session,
                                                const app::Comparison& comparison,
                                                app::TargetProtocol protocol);
// Protocols with at least one compared target, in registry order.
std::vector<app::TargetProtocol> comparedProtocols(const app::Session& session,
                                                   const app::Comparison& comparison);
// Levels at which some target of `protocol` has a row, ascending.
std::vector<int> comparedLevels(const app::Comparison& comparison,
                                const std::vector<const app::Target*>& targets);

// "−17.3% vs host" and its style for one row of the table.
QString vsBaselineNote(const app::ComparisonRow& row, const QString& baselineName,
                       ChartAnnotations::LabelStyle* style);

// One bar per target: the metric's mean at `concurrency`.
ModeBarChartData modeBarChartData(const app::Session& session, const app::Comparison& comparison,
                                  app::Metric metric, app::TargetProtocol protocol,
                                  int concurrency);
// One line per target: the metric's mean against concurrency.
ModeLineChartData scalingChartData(const app::Session& session, const app::Comparison& comparison,
                                   app::Metric metric, app::TargetProtocol protocol);

// x of a percentile on the HdrHistogram plot: log10(1 / (1 - p/100)), so
// 90% is 1, 99% is 2, 99.9% is 3; nullopt at 100% (infinitely far).
std::optional<double> percentileScale(double percentile);
// The highest percentile plotted (99.999%): beyond it even a run of a
// million requests has a handful of samples, and the chart no room.
inline constexpr double kMaxPlottedPercentileScale = 5;

// One line per target: its latency distribution at `concurrency` (merged
// histograms, or the percentiles an imported tool printed) on the
// percentileScale() axis, up to kMaxPlottedPercentileScale.
// `distributions` are those of `concurrency`, by target.
ModeLineChartData
latencyDistributionData(const app::Session& session, const app::Comparison& comparison,
                        const std::map<QUuid, app::LatencyDistribution>& distributions,
                        app::TargetProtocol protocol, int concurrency);

} // namespace loadscope::ui
