#include "ui/run/live_point_charts.h"

#include "engine/progress.h"
#include "ui/common/chart_panel.h"
#include "ui/common/chart_style.h"

#include <QChart>
#include <QHBoxLayout>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace loadscope::ui {

namespace {

QValueAxis* addAxis(QChart* chart, const QString& title, Qt::Alignment alignment) {
    auto* axis = new QValueAxis;
    applyAxisStyle(axis, title);
    chart->addAxis(axis, alignment);
    return axis;
}

QLineSeries* addLine(QChart* chart, const QString& name, QValueAxis* x, QValueAxis* y) {
    auto* series = new QLineSeries;
    series->setName(name);
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    return series;
}

// The p99 line's colour beside a target's p50 colour: the target's hue turned a third of the
// way round, at a lightness the eye tells apart from the median's in the legend.
QColor tailColour(const QColor& colour) {
    QColor hsl = colour.toHsl();
    const int hue = hsl.hslHue() < 0 ? 0 : (hsl.hslHue() + 120) % 360;
    const int lightness = hsl.lightness() > 128 ? hsl.lightness() - 70 : hsl.lightness() + 50;
    // Dark enough to read as a line on the white plot.
    return QColor::fromHsl(hue, std::max(hsl.hslSaturation(), 140), std::clamp(lightness, 40, 140));
}

} // namespace

LivePointCharts::LivePointCharts(QWidget* parent)
    : QWidget(parent) {
    m_requestsChart = new QChart;
    applyChartStyle(m_requestsChart);
    m_requestsTime = addAxis(m_requestsChart, tr("Time (s)"), Qt::AlignBottom);
    m_requestsValue = addAxis(m_requestsChart, tr("Requests/s (req/s)"), Qt::AlignLeft);
    m_requests = addLine(m_requestsChart, tr("requests/s"), m_requestsTime, m_requestsValue);
    m_requestsChart->legend()->hide();

    m_latencyChart = new QChart;
    applyChartStyle(m_latencyChart);
    m_latencyTime = addAxis(m_latencyChart, tr("Time (s)"), Qt::AlignBottom);
    m_latencyValue = addAxis(m_latencyChart, tr("Latency (ms)"), Qt::AlignLeft);
    m_p50 = addLine(m_latencyChart, tr("p50"), m_latencyTime, m_latencyValue);
    m_p99 = addLine(m_latencyChart, tr("p99"), m_latencyTime, m_latencyValue);

    m_requestsPanel = new ChartPanel(m_requestsChart, QStringLiteral("live-requests"));
    m_requestsPanel->setObjectName(QStringLiteral("liveRequestsChart"));
    m_latencyPanel = new ChartPanel(m_latencyChart, QStringLiteral("live-latency"));
    m_latencyPanel->setObjectName(QStringLiteral("liveLatencyChart"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_requestsPanel);
    layout->addWidget(m_latencyPanel);
    clear();
}

void LivePointCharts::clear() {
    clear(m_rate.label.isEmpty() ? Rate{tr("Requests/s"), tr("req/s"), false} : m_rate);
}

void LivePointCharts::clear(const Rate& rate) {
    startPoint(tr("no point running"), QColor(0x0072b2), 0, rate);
}

void LivePointCharts::startPoint(const QString& title, const QColor& colour, double plannedSeconds,
                                 const Rate& rate) {
    m_rate = rate;
    m_liveRate = app::LiveRate(rate.fromBytes);
    m_requestPoints.clear();
    m_p50Points.clear();
    m_p99Points.clear();
    m_plannedSeconds = plannedSeconds;
    m_timeSpan = plannedSeconds > 0 ? plannedSeconds : 5;
    m_requestsTop = 0;
    m_latencyTop = 0;
    m_requestsChart->setTitle(QStringLiteral("%1 — %2").arg(rate.label, title));
    m_requestsValue->setTitleText(QStringLiteral("%1 (%2)").arg(rate.label, rate.unit));
    m_requests->setName(rate.label);
    m_latencyChart->setTitle(tr("Latency — %1").arg(title));

    m_requests->setPen(QPen(colour, 2));
    m_p50->setPen(QPen(colour, 2));
    // The tail in a colour of its own, not a shade of the median's: the legend draws each
    // line's swatch from its colour alone, without the dashes, and a darker shade of a dark
    // target colour read as the same swatch.
    m_p99->setPen(QPen(tailColour(colour), 2, Qt::DashLine));
    m_requests->clear();
    m_p50->clear();
    m_p99->clear();
    updateAxes();
}

void LivePointCharts::addSnapshot(const engine::Progress& progress) {
    // Warm-up is not measured; the page says it is going on.
    if (progress.warmingUp || progress.intervalSeconds <= 0)
        return;
    const double t = progress.elapsedSeconds;
    const std::optional<double> interval = m_liveRate.next(progress);
    if (!interval)
        return;
    const double rate = *interval;
    m_requestPoints.append(QPointF(t, rate));
    m_requestsTop = std::max(m_requestsTop, rate);
    if (!progress.intervalLatency.empty()) {
        const double p50 = double(progress.intervalLatency.valueAtPercentile(50)) / 1e6;
        const double p99 = double(progress.intervalLatency.valueAtPercentile(99)) / 1e6;
        m_p50Points.append(QPointF(t, p50));
        m_p99Points.append(QPointF(t, p99));
        m_latencyTop = std::max(m_latencyTop, p99);
    }
    // A counted point runs as long as it takes: the time axis doubles when
    // reached rather than moving at every snapshot. A timed point keeps its
    // planned span: its last snapshot comes a moment past the end, which must
    // not double the axis and leave the data on its first half.
    if (m_plannedSeconds > 0)
        m_timeSpan = std::max(m_timeSpan, t > m_plannedSeconds * 1.05 ? t : m_plannedSeconds);
    else
        while (t > m_timeSpan)
            m_timeSpan *= 2;
    m_requests->replace(m_requestPoints);
    m_p50->replace(m_p50Points);
    m_p99->replace(m_p99Points);
    updateAxes();
}

void LivePointCharts::updateAxes() {
    for (QValueAxis* axis : {m_requestsTime, m_latencyTime})
        setZeroBasedRange(axis, m_timeSpan);
    setZeroBasedRange(m_requestsValue, m_requestsTop * 1.1);
    setZeroBasedRange(m_latencyValue, m_latencyTop > 0 ? m_latencyTop * 1.1 : 1);
}

} // namespace loadscope::ui
