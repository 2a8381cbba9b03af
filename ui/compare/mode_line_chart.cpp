#include "ui/compare/mode_line_chart.h"

#include "ui/common/chart_annotations.h"
#include "ui/common/chart_style.h"

#include <QCategoryAxis>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <set>

namespace loadscope::ui {

namespace {

// Percentile ticks and their place on the HdrHistogram scale.
struct PercentileTick {
    const char* label;
    double x;
};
constexpr PercentileTick kPercentileTicks[] = {
    {"50%", 0.30103}, {"90%", 1}, {"99%", 2}, {"99.9%", 3}, {"99.99%", 4}, {"99.999%", 5},
};

} // namespace

ModeLineChart::ModeLineChart(XAxis xAxis)
    : m_xAxisKind(xAxis) {
    applyChartStyle(this);
    // Both axes are logarithmic, drawn as a linear axis over log10 of the
    // value so that the ticks can sit where they mean something: at the
    // sweep's own levels (1, 10, 50 rather than 1, 10, 100) and at 90%, 99%,
    // 99.9% of the HdrHistogram scale.
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_x = axis;
    m_y = new QValueAxis;
    applyAxisStyle(m_x, QString());
    applyAxisStyle(m_y, QString());
    if (xAxis == XAxis::Percentile) {
        // The axis elides a label wider than its unit: "99.999%" must fit in
        // a sixth of a chart a third of a window wide.
        QFont small = m_x->labelsFont();
        small.setPointSizeF(7);
        m_x->setLabelsFont(small);
    }
    addAxis(m_x, Qt::AlignBottom);
    addAxis(m_y, Qt::AlignLeft);
    m_annotations = new ChartAnnotations(this);
}

void ModeLineChart::setData(const ModeLineChartData& data) {
    setTitle(data.emptyText.isEmpty() ? data.title
                                      : QStringLiteral("%1 — %2").arg(data.title, data.emptyText));
    m_x->setTitleText(data.xTitle);
    m_y->setTitleText(data.yTitle);

    bool sameModes = data.lines.size() == m_data.lines.size();
    for (size_t i = 0; sameModes && i < data.lines.size(); ++i) {
        sameModes = data.lines[i].targetId == m_data.lines[i].targetId &&
                    data.lines[i].colour == m_data.lines[i].colour;
    }
    if (!sameModes)
        rebuildSeries(data);

    double top = 0;
    QList<ChartAnnotations::ErrorBar> errorBars;
    for (qsizetype i = 0; i < m_lines.size(); ++i) {
        const ModeLine& line = data.lines[size_t(i)];
        m_lines[i]->setName(line.name);
        QList<QPointF> points;
        points.reserve(line.points.size());
        for (const QPointF& point : line.points) {
            points.append(QPointF(plotX(point.x()), point.y()));
            top = std::max(top, point.y());
        }
        m_lines[i]->replace(points);
        for (const ModeLine::Range& range : line.ranges) {
            errorBars << ChartAnnotations::ErrorBar{m_lines[i], plotX(range.x), range.low,
                                                    range.high, line.colour};
            top = std::max(top, range.high);
        }
    }
    m_data = data;
    updateXAxis(data);
    setZeroBasedRange(m_y, top * 1.05);
    m_annotations->setErrorBars(std::move(errorBars));
}

double ModeLineChart::plotX(double x) const {
    return m_xAxisKind == XAxis::Concurrency ? std::log10(std::max(x, 1e-9)) : x;
}

void ModeLineChart::rebuildSeries(const ModeLineChartData& data) {
    removeAllSeries();
    m_lines.clear();
    for (const ModeLine& line : data.lines) {
        auto* series = new QLineSeries;
        series->setName(line.name);
        QPen pen(line.colour, 2);
        series->setPen(pen);
        series->setColor(line.colour);
        // Markers where a level was measured; a distribution is a curve.
        series->setPointsVisible(m_xAxisKind == XAxis::Concurrency);
        series->setMarkerSize(7);
        addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
        m_lines << series;
    }
    legend()->setVisible(!m_lines.isEmpty());
}

void ModeLineChart::updateXAxis(const ModeLineChartData& data) {
    auto* axis = static_cast<QCategoryAxis*>(m_x);
    for (const QString& label : axis->categoriesLabels())
        axis->remove(label);
    axis->setStartValue(0);
    // A category axis without categories is laid out nowhere: its title was drawn on its own
    // above the chart's frame. Without levels there is nothing for it to say.
    axis->setVisible(true);

    if (m_xAxisKind == XAxis::Concurrency) {
        std::set<double> levels;
        for (const ModeLine& line : data.lines) {
            for (const QPointF& point : line.points)
                levels.insert(point.x());
        }
        if (levels.empty()) {
            axis->setRange(0, 2);
            axis->setVisible(false);
            return;
        }
        const double low = plotX(*levels.begin());
        const double high = plotX(*levels.rbegin());
        const double pad = std::max(0.12, (high - low) * 0.06);
        axis->setStartValue(low - pad);
        for (double level : levels)
            axis->append(QString::number(level, 'g', 7), plotX(level));
        axis->setRange(low - pad, high + pad);
        return;
    }

    double high = 0;
    for (const ModeLine& line : data.lines) {
        for (const QPointF& point : line.points)
            high = std::max(high, point.x());
    }
    // Ticks up to the one nearest the end of the data, and room beyond it
    // for half its label, which the axis would otherwise elide.
    const double lastTick = std::clamp(std::ceil(high - 0.5), 2.0, kMaxPlottedPercentileScale);
    for (const PercentileTick& tick : kPercentileTicks) {
        if (tick.x <= lastTick + 1e-9)
            axis->append(QString::fromLatin1(tick.label), tick.x);
    }
    axis->setRange(0, std::max(high * 1.03, lastTick + 0.6));
}

} // namespace loadscope::ui
