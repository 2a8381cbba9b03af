#pragma once

#include "ui/compare/path_breakdown_data.h"

#include <QChart>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace loadscope::ui {

// One stacked bar per deployment mode, one segment per kernel path (and user
// space) in the path's colour, the paths named in the legend: what a mode's
// CPU per request is made of, or how it differs from the baseline's (a
// negative segment below the axis).
class PathBreakdownChart : public QChart {
    Q_OBJECT

public:
    PathBreakdownChart();

    // Replaces everything shown, at once.
    void setData(const PathBreakdownData& data);
    const PathBreakdownData& data() const { return m_data; }
    QStackedBarSeries* series() const { return m_series; }

private:
    QString segmentToolTip(const PathSegment& segment, int mode) const;

    PathBreakdownData m_data;
    QStackedBarSeries* m_series = nullptr;
    QBarCategoryAxis* m_categories = nullptr;
    QValueAxis* m_values = nullptr;
};

} // namespace loadscope::ui
