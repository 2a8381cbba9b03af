#pragma once

#include "app/session/comparison.h"
#include "app/session/metric.h"
#include "app/session/session.h"

#include <QWidget>
#include <memory>
#include <optional>

class QAbstractItemModel;
class QLabel;
class QLineEdit;
class QTableView;

namespace loadscope::ui {

class ComparisonFilterModel;
class ComparisonTableModel;

// The Compare page's table: the comparison's rows of one protocol, filtered to a level and a
// metric (or every one) and to the rows holding what is typed in its Rows box, sortable by
// any column, its columns fitted to their content and kept as the user sizes them, "12 of 84
// rows" beside the box. Ctrl+C copies the selection as tab-separated text.
class ComparisonTablePanel : public QWidget {
    Q_OBJECT

public:
    explicit ComparisonTablePanel(QWidget* parent = nullptr);

    void setComparison(const app::Session& session,
                       std::shared_ptr<const app::Comparison> comparison,
                       app::TargetProtocol protocol);
    // nullopt: every level, every metric.
    void setFilter(std::optional<int> level, std::optional<app::Metric> metric);
    // Back to the comparison's own order, no text filter, nothing selected (another session).
    void reset();

    QTableView* view() const { return m_view; }
    // The rows as shown, for the report.
    const QAbstractItemModel* shownRows() const;
    int shownRowCount() const;
    int rowCount() const;
    QString filterText() const;
    // "Changes: ratio to the baseline with its 95% interval, …; here 3 paired, 0 Welch.":
    // how the rows shown were judged.
    QString methodSummary() const;

private:
    void updateRowCount();

    ComparisonTableModel* m_model = nullptr;
    ComparisonFilterModel* m_filtered = nullptr;
    QTableView* m_view = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_rowCount = nullptr;
};

} // namespace loadscope::ui
