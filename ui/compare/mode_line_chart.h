#pragma once

#include "ui/compare/compare_chart_data.h"

#include <QChart>
#include <QList>

class QAbstractAxis;
class QLineSeries;
class QValueAxis;

namespace loadscope::ui {

class ChartAnnotations;

// One line per deployment mode in the mode's colour, against concurrency
// (log axis) or against percentile (HdrHistogram scale).
class ModeLineChart : public QChart {
    Q_OBJECT

public:
    enum class XAxis {
        Concurrency, // logarithmic, ticks at the sweep's levels
        // log10(1/(1-p)), labelled 50%, 90%, 99%, 99.9% ... as HdrHistogram plots are
        Percentile,
    };

    explicit ModeLineChart(XAxis xAxis);

    // Replaces everything shown; each line is fed whole (replace()), and a
    // line keeps its series while its mode stays. Concurrency lines are
    // plotted at log10(level): data() keeps the levels themselves.
    void setData(const ModeLineChartData& data);
    const ModeLineChartData& data() const { return m_data; }

    QList<QLineSeries*> lines() const { return m_lines; }
    ChartAnnotations* annotations() const { return m_annotations; }

private:
    // Where value x of the data lies on the chart's x axis.
    double plotX(double x) const;
    void rebuildSeries(const ModeLineChartData& data);
    void updateXAxis(const ModeLineChartData& data);

    XAxis m_xAxisKind;
    ModeLineChartData m_data;
    QList<QLineSeries*> m_lines; // one per entry of m_data.lines
    QAbstractAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    ChartAnnotations* m_annotations = nullptr;
};

} // namespace loadscope::ui
