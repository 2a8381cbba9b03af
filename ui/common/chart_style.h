#pragma once

#include <QColor>
#include <QString>
#include <optional>

class QAbstractAxis;
class QChart;
class QValueAxis;

namespace loadscope::app {
struct Target;
}

namespace loadscope::ui {

// One look for every chart of the window and of its exports: white
// background without rounded corners (exports are pasted into documents),
// no animation (charts are rebuilt whole and must show the new state at
// once), compact margins and a bold title.
void applyChartStyle(QChart* chart);
void applyAxisStyle(QAbstractAxis* axis, const QString& title);

// The target's colour, or a neutral grey when the session holds none valid.
QColor targetColour(const app::Target& target);

// Sets a value axis to [0, a round number above `maximum`] with ticks on
// round numbers, so that axes read 0, 2 000, 4 000 rather than 0, 1 873.
void setZeroBasedRange(QValueAxis* axis, double maximum);

// "12,345", "123", "1.23", "0.0123" in the user's locale: three significant
// digits below 1000, whole numbers with digit grouping from 1000 on.
QString formatValue(double value);
// "−17.3 %" with a real minus sign, "+4.0 %".
QString formatPercent(double percent);

} // namespace loadscope::ui
