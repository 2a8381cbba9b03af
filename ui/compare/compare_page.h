#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace loadscope::app {
class Comparison;
class SessionDocument;
} // namespace loadscope::app

namespace loadscope::ui {

class ChartPanel;
class ComparisonTableModel;
class ModeBarChart;
class ModeLineChart;

// The Compare page: every chart of a session's comparison side by side
// (grouped bars at one concurrency, scaling lines, latency distribution) and
// the comparison table behind them. Everything shown is read from
// app::Comparison; the page rebuilds itself, coalesced, whenever the
// document's targets or results change.
class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(app::SessionDocument* document, QWidget* parent = nullptr);
    ~ComparePage() override;

    // Writes a multi-page PDF with every Compare chart and the table.
    bool exportReportPdf(const QString& path, QString* error);

    // Every chart panel, in reading order (bars, then lines).
    QList<ChartPanel*> chartPanels() const { return m_panels; }
    // Rebuilds now if a change is waiting (otherwise it happens on the next
    // turn of the event loop, or when a hidden page is shown).
    void rebuildIfPending();

Q_SIGNALS:
    // The charts and the table show the document's current state.
    void chartsChanged();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void createControls();
    void createCharts();
    void scheduleRebuild();
    void rebuild();
    void updateControls();
    void updateCharts();
    void updateSummary();

    app::SessionDocument* m_document = nullptr;
    std::shared_ptr<const app::Comparison> m_comparison;
    QTimer* m_rebuildTimer = nullptr;
    bool m_stale = false; // changed while hidden: rebuild when shown

    QComboBox* m_protocolCombo = nullptr;
    QComboBox* m_levelCombo = nullptr;
    QComboBox* m_metricCombo = nullptr;
    QLabel* m_summary = nullptr;

    ModeBarChart* m_primaryBars = nullptr;
    ModeBarChart* m_transferBars = nullptr;
    ModeBarChart* m_timeBars = nullptr;
    ModeLineChart* m_scaling = nullptr;
    ModeLineChart* m_p99Scaling = nullptr;
    ModeLineChart* m_distribution = nullptr;
    QList<ChartPanel*> m_panels;

    ComparisonTableModel* m_tableModel = nullptr;
    QSortFilterProxyModel* m_sortedTable = nullptr;
    QTableView* m_table = nullptr;
};

} // namespace loadscope::ui
