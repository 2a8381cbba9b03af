#pragma once

#include "ui/compare/compare_chart_data.h"

#include <QChart>

class QBarCategoryAxis;
class QStackedBarSeries;
class QValueAxis;

namespace loadscope::ui {

class ChartAnnotations;

// One bar per deployment mode, in the mode's colour, with the mode's name
// under it, its 95% interval as an error bar and "−17.3% vs host" above it.
//
// Drawn as a stacked series with one set per mode that is zero except at its
// own category: each bar then sits centred on its name at full width, and
// each mode stays one set with one colour, as in every other chart.
class ModeBarChart : public QChart {
    Q_OBJECT

public:
    ModeBarChart();

    // Replaces everything shown, at once.
    void setData(const ModeBarChartData& data);
    const ModeBarChartData& data() const { return m_data; }

    QStackedBarSeries* series() const { return m_series; }
    ChartAnnotations* annotations() const { return m_annotations; }

private:
    QString barToolTip(const ModeBar& bar) const;

    ModeBarChartData m_data;
    QStackedBarSeries* m_series = nullptr;
    QBarCategoryAxis* m_categories = nullptr;
    QValueAxis* m_values = nullptr;
    ChartAnnotations* m_annotations = nullptr;
};

} // namespace loadscope::ui
