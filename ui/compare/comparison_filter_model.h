#pragma once

#include "app/session/metric.h"

#include <QSortFilterProxyModel>
#include <optional>

namespace loadscope::ui {

// The comparison table as the Compare page shows it: sorted by the column the user clicked
// (the comparison's own order until then), and filtered to one level and one metric, or all,
// as the page's pickers say, and to the rows whose text holds what the user typed.
class ComparisonFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit ComparisonFilterModel(QObject* parent = nullptr);

    // nullopt: every level, every metric.
    void setLevel(std::optional<int> level);
    void setMetric(std::optional<app::Metric> metric);
    std::optional<int> level() const { return m_level; }
    std::optional<app::Metric> metric() const { return m_metric; }
    // Rows with `text` in some cell, case aside; empty: every row.
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::optional<int> m_level;
    std::optional<app::Metric> m_metric;
    QString m_text;
};

} // namespace loadscope::ui
