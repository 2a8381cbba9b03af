#include "ui/compare/rate_latency_chart.h"

#include "ui/common/chart_style.h"

#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <algorithm>
#include <cmath>
#include <limits>

namespace loadscope::ui {

namespace {

// The powers of ten around [low, high], a little beyond both ends, so that
// the extreme points do not sit on the frame.
std::pair<double, double> logRange(double low, double high) {
    if (!(low > 0) || !(high > 0) || !std::isfinite(low) || !std::isfinite(high))
        return {1, 10};
    const double from = std::pow(10.0, std::floor(std::log10(low / 1.2)));
    const double to = std::pow(10.0, std::ceil(std::log10(high * 1.2)));
    return {from, std::max(to, from * 10)};
}

} // namespace

RateLatencyChart::RateLatencyChart() {
    applyChartStyle(this);
    m_x = new QLogValueAxis;
    m_y = new QLogValueAxis;
    m_x->setBase(10);
    m_y->setBase(10);
    m_x->setMinorTickCount(8);
    m_y->setMinorTickCount(8);
    // Charts with localised numbers format only some printf forms: "%g" prints nothing.
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setLabelFormat(QStringLiteral("%.6g"));
    applyAxisStyle(m_x, QString());
    applyAxisStyle(m_y, QString());
    addAxis(m_x, Qt::AlignBottom);
    addAxis(m_y, Qt::AlignLeft);
}

void RateLatencyChart::setData(const RateChartData& data) {
    m_data = data;
    setTitle(data.emptyText.isEmpty() ? data.title
                                      : QStringLiteral("%1 — %2").arg(data.title, data.emptyText));
    m_x->setTitleText(data.xTitle);
    m_y->setTitleText(data.yTitle);

    removeAllSeries();
    m_lines.clear();
    m_knees.clear();
    m_objective = nullptr;
    double xLow = std::numeric_limits<double>::infinity();
    double xHigh = 0;
    double yLow = std::numeric_limits<double>::infinity();
    double yHigh = 0;
    const auto extend = [&](const QPointF& point) {
        xLow = std::min(xLow, point.x());
        xHigh = std::max(xHigh, point.x());
        yLow = std::min(yLow, point.y());
        yHigh = std::max(yHigh, point.y());
    };
    for (const RateLine& line : data.lines) {
        auto* series = new QLineSeries;
        series->setName(line.name);
        series->setPen(QPen(line.colour, 2));
        series->setColor(line.colour);
        series->setPointsVisible(true);
        series->setMarkerSize(7);
        series->replace(line.points);
        for (const QPointF& point : line.points)
            extend(point);
        addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
        m_lines << series;

        auto* knee = new QScatterSeries;
        knee->setName(tr("%1 knee").arg(line.name));
        knee->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        knee->setMarkerSize(16);
        knee->setColor(QColor(255, 255, 255, 0));
        knee->setBorderColor(line.colour.darker(130));
        knee->setPen(QPen(line.colour.darker(130), 3));
        if (line.knee)
            knee->append(*line.knee);
        addSeries(knee);
        knee->attachAxis(m_x);
        knee->attachAxis(m_y);
        m_knees << knee;
    }
    if (data.objectiveMs > 0 && xHigh > 0) {
        yLow = std::min(yLow, data.objectiveMs);
        yHigh = std::max(yHigh, data.objectiveMs);
    }
    const auto [x0, x1] = logRange(xLow, xHigh);
    const auto [y0, y1] = logRange(yLow, yHigh);
    if (data.objectiveMs > 0 && xHigh > 0) {
        m_objective = new QLineSeries;
        m_objective->setName(data.objectiveName.isEmpty()
                                 ? tr("objective p99 %1 ms").arg(formatValue(data.objectiveMs))
                                 : data.objectiveName);
        QPen dashed(QColor(0x60, 0x60, 0x60), 1.5, Qt::DashLine);
        m_objective->setPen(dashed);
        m_objective->replace({QPointF(x0, data.objectiveMs), QPointF(x1, data.objectiveMs)});
        addSeries(m_objective);
        m_objective->attachAxis(m_x);
        m_objective->attachAxis(m_y);
    }
    m_x->setRange(x0, x1);
    m_y->setRange(y0, y1);
    // The knee markers explain themselves on the chart; the legend names modes.
    for (QScatterSeries* knee : std::as_const(m_knees)) {
        for (QLegendMarker* marker : legend()->markers(knee))
            marker->setVisible(false);
    }
    for (qsizetype i = 0; i < m_lines.size(); ++i) {
        if (data.lines[size_t(i)].inLegend)
            continue;
        for (QLegendMarker* marker : legend()->markers(m_lines[i]))
            marker->setVisible(false);
    }
    legend()->setVisible(!m_lines.isEmpty());
}

} // namespace loadscope::ui
