#pragma once

#include "app/session/rate_curve.h"
#include "app/session/session.h"
#include "ui/compare/compare_chart_data.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

// What the Compare page's rate-sweep charts show, read from app::rateCurves()
// and app::kneeIndex(). Plain values, as compare_chart_data.h: the charts
// only draw, the tests check what is drawn.
namespace loadscope::ui {

struct RateLine {
    QUuid targetId;
    QString name;
    QColor colour;
    // (achieved req/s, latency ms) per offered rate, ascending by offered rate.
    QList<QPointF> points;
    QList<double> offeredRates; // beside points
    // Where the knee lies on the line, and its offered rate; absent when no
    // level meets the objective.
    std::optional<QPointF> knee;
    std::optional<double> kneeRate;
    // Named in the legend; a mode's other lines (its further capacity
    // searches, capacity_chart_data.h) leave it to the first.
    bool inLegend = true;
};

struct RateChartData {
    QString title;
    QString xTitle;
    QString yTitle;
    QString emptyText;
    double objectiveMs = 0; // drawn as a dashed line across the chart
    QString objectiveName;  // its legend entry; empty: "objective p99 <ms> ms"
    std::vector<RateLine> lines;
};

// "p50", "p99", "p99.9": a percentile as the charts and the view's picker name it.
QString percentileLabel(double percentile);

// One line per curve: `percentile` (50, 99, 99.9) of the corrected latency
// against achieved throughput, with the knee for `objectiveMs` on p99.
RateChartData rateChartData(const app::Session& session, const std::vector<app::RateCurve>& curves,
                            double percentile, double objectiveMs);

// One bar per curve: its knee rate (0 and a note when none).
ModeBarChartData kneeBarChartData(const app::Session& session,
                                  const std::vector<app::RateCurve>& curves, double objectiveMs);

} // namespace loadscope::ui
