#include "ui/common/chart_annotations.h"

#include <QAbstractSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace loadscope::ui {

namespace {

constexpr double kCapHalfWidth = 5;
constexpr double kLabelGap = 3;
constexpr int kLabelPixels = 11; // 8 pt at 96 DPI
constexpr int kSmallestLabelPixels = 8;

} // namespace

ChartAnnotations::ChartAnnotations(QChart* chart)
    : QGraphicsObject(chart)
    , m_chart(chart) {
    // Above the series, which the chart stacks at small z values.
    setZValue(1000);
    setAcceptedMouseButtons(Qt::NoButton);
    m_bounds = QRectF(QPointF(0, 0), chart->size());
    connect(chart, &QChart::plotAreaChanged, this, &ChartAnnotations::chartGeometryChanged);
    connect(chart, &QGraphicsWidget::geometryChanged, this,
            &ChartAnnotations::chartGeometryChanged);
}

void ChartAnnotations::setErrorBars(QList<ErrorBar> errorBars) {
    m_errorBars = std::move(errorBars);
    update();
}

void ChartAnnotations::setLabels(QList<Label> labels) {
    m_labels = std::move(labels);
    update();
}

void ChartAnnotations::clear() {
    m_errorBars.clear();
    m_labels.clear();
    update();
}

QRectF ChartAnnotations::boundingRect() const {
    return m_bounds;
}

void ChartAnnotations::chartGeometryChanged() {
    prepareGeometryChange();
    m_bounds = QRectF(QPointF(0, 0), m_chart->size());
    update();
}

void ChartAnnotations::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                             QWidget* widget) {
    Q_UNUSED(option);
    Q_UNUSED(widget);
    const QRectF plot = m_chart->plotArea();
    if (plot.isEmpty())
        return;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);

    painter->setClipRect(plot.adjusted(-kCapHalfWidth, -1, kCapHalfWidth, 1));
    for (const ErrorBar& bar : std::as_const(m_errorBars)) {
        if (!bar.series || !m_chart->series().contains(bar.series))
            continue;
        const QPointF low = m_chart->mapToPosition(QPointF(bar.x, bar.low), bar.series);
        const QPointF high = m_chart->mapToPosition(QPointF(bar.x, bar.high), bar.series);
        QPen pen(bar.colour.isValid() ? bar.colour : QColor(Qt::black), 1.4);
        pen.setCapStyle(Qt::FlatCap);
        painter->setPen(pen);
        painter->drawLine(low, high);
        painter->drawLine(QPointF(low.x() - kCapHalfWidth, low.y()),
                          QPointF(low.x() + kCapHalfWidth, low.y()));
        painter->drawLine(QPointF(high.x() - kCapHalfWidth, high.y()),
                          QPointF(high.x() + kCapHalfWidth, high.y()));
    }

    // Labels may rise above the plot area into the chart's margin.
    painter->setClipRect(QRectF(QPointF(0, 0), m_chart->size()));
    // Sizes in logical pixels, not points: an export paints onto a device
    // of another DPI through a scaling painter, and a point size would be
    // scaled twice (once by the device, once by the painter).
    QFont valueFont = m_chart->titleFont();
    valueFont.setBold(false);
    valueFont.setPixelSize(kLabelPixels);
    for (const Label& label : std::as_const(m_labels)) {
        if (!label.series || !m_chart->series().contains(label.series))
            continue;
        const QPointF anchor = m_chart->mapToPosition(QPointF(label.x, label.y), label.series);
        QFont noteFont = valueFont;
        QColor noteColour(0x20, 0x20, 0x20);
        switch (label.style) {
        case LabelStyle::Plain:
            break;
        case LabelStyle::Emphasis:
            noteFont.setBold(true);
            break;
        case LabelStyle::Muted:
            noteFont.setItalic(true);
            noteColour = QColor(0x80, 0x80, 0x80);
            break;
        }
        // Shrink the text of narrow bars rather than let neighbours overlap.
        const QStringList noteLines =
            label.note.isEmpty() ? QStringList() : label.note.split(QLatin1Char('\n'));
        const double room = std::abs(
            m_chart->mapToPosition(QPointF(label.x + 1, label.y), label.series).x() - anchor.x());
        QFont lineValueFont = valueFont;
        for (int attempt = 0; attempt < 4; ++attempt) {
            double widest = QFontMetricsF(lineValueFont).horizontalAdvance(label.value);
            for (const QString& line : noteLines)
                widest = std::max(widest, QFontMetricsF(noteFont).horizontalAdvance(line));
            if (room <= 0 || widest <= room * 0.96 || noteFont.pixelSize() <= kSmallestLabelPixels)
                break;
            noteFont.setPixelSize(noteFont.pixelSize() - 1);
            lineValueFont.setPixelSize(lineValueFont.pixelSize() - 1);
        }
        const QFontMetricsF valueMetrics(lineValueFont);
        const QFontMetricsF noteMetrics(noteFont);
        double baseline = anchor.y() - kLabelGap;
        painter->setFont(noteFont);
        painter->setPen(noteColour);
        for (qsizetype i = noteLines.size() - 1; i >= 0; --i) {
            const double width = noteMetrics.horizontalAdvance(noteLines[i]);
            painter->drawText(QPointF(anchor.x() - width / 2, baseline - noteMetrics.descent()),
                              noteLines[i]);
            baseline -= noteMetrics.height();
        }
        if (!label.value.isEmpty()) {
            painter->setFont(lineValueFont);
            painter->setPen(QColor(0x20, 0x20, 0x20));
            const double width = valueMetrics.horizontalAdvance(label.value);
            painter->drawText(QPointF(anchor.x() - width / 2, baseline - valueMetrics.descent()),
                              label.value);
        }
    }
    painter->restore();
}

} // namespace loadscope::ui
