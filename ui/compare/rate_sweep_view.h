#pragma once

#include "app/session/rate_curve.h"
#include "app/session/session.h"

#include <QList>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QTableWidget;

namespace loadscope::ui {

class ChartPanel;
class ModeBarChart;
class RateLatencyChart;

// The Compare page's part for rate sweeps: latency (p50, p99 or p99.9)
// against achieved throughput per mode, the latency objective the user sets,
// each mode's knee (app::kneeIndex()) marked on the chart, as bars and in a
// table. Fed the curves a CompareSnapshot built off the GUI thread; what it
// does itself (a knee per curve when the objective changes) is a walk over a
// handful of levels.
class RateSweepView : public QWidget {
    Q_OBJECT

public:
    explicit RateSweepView(QWidget* parent = nullptr);

    void setCurves(std::shared_ptr<const app::Session> session, std::vector<app::RateCurve> curves);
    bool hasCurves() const { return !m_curves.empty(); }

    double objectiveMs() const;
    void setObjectiveMs(double milliseconds);
    double percentile() const; // 50, 99 or 99.9
    void setPercentile(double percentile);

    RateLatencyChart* latencyChart() const { return m_latency; }
    ModeBarChart* kneeBars() const { return m_kneeBars; }
    QTableWidget* kneeTable() const { return m_table; }
    QList<ChartPanel*> chartPanels() const { return m_panels; }

Q_SIGNALS:
    void chartsChanged();

private:
    void refresh();
    void updateTable();

    std::shared_ptr<const app::Session> m_session;
    std::vector<app::RateCurve> m_curves;
    QComboBox* m_percentile = nullptr;
    QDoubleSpinBox* m_objective = nullptr;
    RateLatencyChart* m_latency = nullptr;
    ModeBarChart* m_kneeBars = nullptr;
    QList<ChartPanel*> m_panels;
    QTableWidget* m_table = nullptr;
};

} // namespace loadscope::ui
