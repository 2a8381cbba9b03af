#pragma once

#include "app/common/background_job.h"
#include "app/common/result.h"
#include "app/session/metric.h"
#include "ui/compare/compare_report.h"

#include <QCoroTask>
#include <QList>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;
class QTimer;

namespace loadscope::app {
class SessionDocument;
} // namespace loadscope::app

namespace loadscope::ui {

class CapacityView;
class ChartPanel;
class ComparisonTablePanel;
struct CompareSnapshot;
struct LevelDistributions;
class ModeBarChart;
class ModeLineChart;
class PathBreakdownChart;
class RateSweepView;

// The Compare page: every chart of a session's comparison side by side
// (grouped bars at one concurrency, scaling lines, latency distribution) and
// the comparison table behind them. Everything shown is read from
// app::Comparison; the page rebuilds itself, coalesced, whenever the
// document's targets or results change.
//
// A rebuild copies the session and builds the comparison and the latency
// distributions (a CompareSnapshot) on a worker thread; the GUI thread only
// applies the finished snapshot. A rebuild started while another runs
// supersedes it: the older result is dropped.
class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(app::SessionDocument* document, QWidget* parent = nullptr);
    ~ComparePage() override;

    // Writes a multi-page PDF with every Compare chart and the table, once
    // they show the document's current state (a rebuild in flight is
    // awaited, never waited for).
    QCoro::Task<app::Result<void>> exportReportPdf(QString path);
    // What the report holds as the page shows it now: the charts, the table as sorted and
    // filtered, and a header naming the levels, the filter and the tests that judged the rows.
    CompareReport report() const;

    // The comparison table as shown (sorted and filtered).
    QTableView* table() const;

    // Every chart panel of the closed-loop comparison, in reading order
    // (bars, then lines, then the CPU breakdown by path).
    QList<ChartPanel*> chartPanels() const { return m_panels; }
    // The rate sweeps' charts and knees, shown when the session has
    // fixed-rate results.
    RateSweepView* rateSweepView() const { return m_rateView; }
    // A capacity plan's searches, shown when any has a step.
    CapacityView* capacityView() const { return m_capacityView; }
    // Starts the rebuild now if a change is waiting (otherwise it starts on
    // the next turn of the event loop, or when a hidden page is shown).
    void rebuildIfPending();
    // The charts and the table show the document's current state: no change
    // waits and no rebuild runs.
    bool isUpToDate() const;

Q_SIGNALS:
    // A rebuilt snapshot was applied (the charts may lag the document if it
    // changed again meanwhile: see isUpToDate()).
    void chartsChanged();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void createControls();
    void createCharts();
    void scheduleRebuild();
    void rebuild();
    void applySnapshot(std::shared_ptr<const CompareSnapshot> snapshot);
    // Merges the distributions of a level the snapshot does not have (the
    // user picked another level) on a worker thread.
    void requestDistributions(int concurrency);
    void updateControls();
    // Sets every chart from the snapshot and the controls; chartsChanged()
    // follows the last. A snapshot's charts are set one per turn of the event
    // loop; a change of the controls sets them at once.
    enum class ChartPace { AllAtOnce, OnePerTurn };
    void updateCharts();
    void setCharts(ChartPace pace);
    void setNextChart();
    void updateSummary();
    // The level and metric the charts show: the picked one, or with "all" picked the one
    // picked last (else the default).
    int chartLevel() const;
    app::Metric chartMetric() const;
    // The table follows the level and metric pickers, "all" included.
    void applyTableFilter();
    void sessionReplaced();

    app::SessionDocument* m_document = nullptr;
    std::shared_ptr<const CompareSnapshot> m_snapshot;         // what is shown
    std::shared_ptr<const LevelDistributions> m_distributions; // of the level shown
    app::BackgroundJob m_rebuildJob{this};
    app::BackgroundJob m_distributionJob{this};
    int m_requestedLevel = -1; // of the distribution job in flight
    QTimer* m_rebuildTimer = nullptr;
    std::vector<std::function<void()>> m_chartSteps; // charts still to set, in order
    QTimer* m_chartStepTimer = nullptr;
    bool m_stale = false; // changed while hidden: rebuild when shown

    QComboBox* m_protocolCombo = nullptr;
    QComboBox* m_levelCombo = nullptr;
    QLabel* m_levelLabel = nullptr; // "&Concurrency:" or "&Connections:" (level_naming.h)
    QComboBox* m_metricCombo = nullptr;
    QLabel* m_summary = nullptr;
    QCheckBox* m_poolSources = nullptr;

    ModeBarChart* m_primaryBars = nullptr;
    ModeBarChart* m_transferBars = nullptr;
    ModeBarChart* m_timeBars = nullptr;
    ModeLineChart* m_scaling = nullptr;
    ModeLineChart* m_p99Scaling = nullptr;
    ModeLineChart* m_distribution = nullptr;
    // What each mode's CPU per request is made of, by kernel path, and how
    // it differs from the baseline's: shown when the session has profiles.
    PathBreakdownChart* m_pathBars = nullptr;
    PathBreakdownChart* m_pathDifference = nullptr;
    QList<ChartPanel*> m_panels;
    QWidget* m_chartGrid = nullptr;
    RateSweepView* m_rateView = nullptr;
    CapacityView* m_capacityView = nullptr;

    ComparisonTablePanel* m_table = nullptr;
};

} // namespace loadscope::ui
