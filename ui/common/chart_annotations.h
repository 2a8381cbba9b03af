#pragma once

#include <QColor>
#include <QGraphicsObject>
#include <QList>
#include <QPointF>
#include <QPointer>
#include <QString>

class QAbstractSeries;
class QChart;

namespace loadscope::ui {

// What Qt Charts lacks and the Compare charts need: error bars (95%
// confidence intervals over repetitions) and a free text above each bar
// ("−17.3% vs host"). One item over the whole chart paints all of them,
// mapping value coordinates through the chart at paint time, so the marks
// follow any resize or export without being moved by hand.
class ChartAnnotations : public QGraphicsObject {
    Q_OBJECT

public:
    // A vertical interval [low, high] at value x of `series`.
    struct ErrorBar {
        QAbstractSeries* series = nullptr;
        double x = 0;
        double low = 0;
        double high = 0;
        QColor colour;
    };
    enum class LabelStyle {
        Plain,    // a fact: the value, "baseline"
        Emphasis, // a difference beyond noise
        Muted,    // a difference within noise, or one that cannot be judged
    };
    // Text centred above value (x, y) of `series`: `value` on the first
    // line, `note` below it, one line per newline (either may be empty).
    struct Label {
        QAbstractSeries* series = nullptr;
        double x = 0;
        double y = 0;
        QString value;
        QString note;
        LabelStyle style = LabelStyle::Plain;
    };

    explicit ChartAnnotations(QChart* chart);

    void setErrorBars(QList<ErrorBar> errorBars);
    void setLabels(QList<Label> labels);
    void clear();

    const QList<ErrorBar>& errorBars() const { return m_errorBars; }
    const QList<Label>& labels() const { return m_labels; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    void chartGeometryChanged();

    QChart* m_chart = nullptr;
    QList<ErrorBar> m_errorBars;
    QList<Label> m_labels;
    QRectF m_bounds;
};

} // namespace loadscope::ui
