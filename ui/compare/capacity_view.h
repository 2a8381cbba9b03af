#pragma once

#include "app/session/capacity_comparison.h"
#include "app/session/session.h"

#include <QList>
#include <QWidget>
#include <memory>

class QLabel;
class QTableWidget;

namespace loadscope::ui {

class ChartPanel;
class ModeBarChart;
class RateLatencyChart;

// The Compare page's part for a capacity plan: a bar per mode with its
// capacity at the objective, its 95 % interval and change against the
// baseline; each search's steps on the latency–rate chart with its answer
// ringed; a table of the modes and of every search's answer. Fed a
// CompareSnapshot's comparison, built off the GUI thread; it only draws.
class CapacityView : public QWidget {
    Q_OBJECT

public:
    explicit CapacityView(QWidget* parent = nullptr);

    // `comparison` points into `session`'s results: both are kept.
    void setComparison(std::shared_ptr<const app::Session> session,
                       std::shared_ptr<const app::CapacityComparison> comparison);
    bool hasSearches() const { return m_comparison && !m_comparison->isEmpty(); }

    ModeBarChart* capacityBars() const { return m_bars; }
    RateLatencyChart* stepsChart() const { return m_steps; }
    QTableWidget* table() const { return m_table; }
    QList<ChartPanel*> chartPanels() const { return m_panels; }

Q_SIGNALS:
    void chartsChanged();

private:
    void updateTable();

    std::shared_ptr<const app::Session> m_session;
    std::shared_ptr<const app::CapacityComparison> m_comparison;
    QLabel* m_title = nullptr;
    ModeBarChart* m_bars = nullptr;
    RateLatencyChart* m_steps = nullptr;
    QList<ChartPanel*> m_panels;
    QTableWidget* m_table = nullptr;
};

} // namespace loadscope::ui
