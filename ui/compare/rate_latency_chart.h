#pragma once

#include "ui/compare/rate_chart_data.h"

#include <QChart>
#include <QList>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;

namespace loadscope::ui {

// A rate sweep's latency against achieved throughput: one line per mode in
// the mode's colour, both axes logarithmic (rates step by factors, and
// latency past the knee grows by orders of magnitude), the knee of each mode
// as a large ringed marker and the latency objective as a dashed line.
class RateLatencyChart : public QChart {
    Q_OBJECT

public:
    RateLatencyChart();

    // Replaces everything shown, at once (each series fed whole).
    void setData(const RateChartData& data);
    const RateChartData& data() const { return m_data; }

    QList<QLineSeries*> lines() const { return m_lines; }
    // One per line, holding the knee's point or none.
    QList<QScatterSeries*> kneeMarkers() const { return m_knees; }
    QLineSeries* objectiveLine() const { return m_objective; }

private:
    RateChartData m_data;
    QList<QLineSeries*> m_lines;
    QList<QScatterSeries*> m_knees;
    QLineSeries* m_objective = nullptr;
    QLogValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
};

} // namespace loadscope::ui
