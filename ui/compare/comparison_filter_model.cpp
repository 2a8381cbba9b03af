#include "ui/compare/comparison_filter_model.h"

#include "ui/compare/comparison_table_model.h"

namespace loadscope::ui {

ComparisonFilterModel::ComparisonFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(ComparisonTableModel::kSortRole);
}

void ComparisonFilterModel::setLevel(std::optional<int> level) {
    if (level == m_level)
        return;
    m_level = level;
    invalidateRowsFilter();
}

void ComparisonFilterModel::setMetric(std::optional<app::Metric> metric) {
    if (metric == m_metric)
        return;
    m_metric = metric;
    invalidateRowsFilter();
}

void ComparisonFilterModel::setText(const QString& text) {
    const QString trimmed = text.trimmed();
    if (trimmed == m_text)
        return;
    m_text = trimmed;
    invalidateRowsFilter();
}

bool ComparisonFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const auto* table = qobject_cast<const ComparisonTableModel*>(sourceModel());
    const app::ComparisonRow* row = table ? table->rowAt(sourceRow) : nullptr;
    if (!row)
        return true;
    if (m_level && row->concurrency != *m_level)
        return false;
    if (m_metric && row->metric != *m_metric)
        return false;
    if (m_text.isEmpty())
        return true;
    for (int column = 0; column < table->columnCount(); ++column) {
        if (table->index(sourceRow, column, sourceParent)
                .data()
                .toString()
                .contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace loadscope::ui
