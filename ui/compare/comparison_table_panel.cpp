#include "ui/compare/comparison_table_panel.h"

#include "ui/common/remembered_columns.h"
#include "ui/common/table_copy.h"
#include "ui/compare/comparison_filter_model.h"
#include "ui/compare/comparison_table_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

namespace loadscope::ui {

ComparisonTablePanel::ComparisonTablePanel(QWidget* parent)
    : QWidget(parent) {
    m_model = new ComparisonTableModel(this);
    m_filtered = new ComparisonFilterModel(this);
    m_filtered->setSourceModel(m_model);
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("comparisonTable"));
    m_view->setModel(m_filtered);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // the comparison's own order until asked
    m_view->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    // A series name too long for its column keeps both ends: the target and what tells its
    // series apart ("host (ab, …ed-rate)"); the tooltip has it whole.
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->verticalHeader()->minimumSectionSize() +
                                                    4);
    m_view->setToolTip(tr("The comparison behind the charts, filtered by the level and metric "
                          "pickers above. Click a header to sort, drag its edge to size a "
                          "column (kept for next time); Ctrl+C copies the selected cells as "
                          "tab-separated text."));
    installTsvCopy(m_view);
    new RememberedColumns(m_view, QStringLiteral("compare/tableColumns"),
                          ComparisonTableModel::TargetColumn);

    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("tableFilter"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setPlaceholderText(tr("Filter rows: a target, mode, verdict…"));
    m_filter->setMaximumWidth(320);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_filtered->setText(text);
        updateRowCount();
    });
    m_rowCount = new QLabel;
    m_rowCount->setObjectName(QStringLiteral("tableRowCount"));

    auto* filterRow = new QHBoxLayout;
    auto* filterLabel = new QLabel(tr("&Rows:"));
    filterLabel->setBuddy(m_filter);
    filterRow->addWidget(filterLabel);
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_rowCount);
    filterRow->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(filterRow);
    layout->addWidget(m_view, 1);
}

void ComparisonTablePanel::setComparison(const app::Session& session,
                                         std::shared_ptr<const app::Comparison> comparison,
                                         app::TargetProtocol protocol) {
    // Sorting survives the reset: the proxy re-sorts by its current column.
    m_model->setComparison(session, std::move(comparison), protocol);
    updateRowCount();
}

void ComparisonTablePanel::setFilter(std::optional<int> level, std::optional<app::Metric> metric) {
    m_filtered->setLevel(level);
    m_filtered->setMetric(metric);
    updateRowCount();
}

void ComparisonTablePanel::reset() {
    m_filter->clear();
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->clearSelection();
}

const QAbstractItemModel* ComparisonTablePanel::shownRows() const {
    return m_filtered;
}

int ComparisonTablePanel::shownRowCount() const {
    return m_filtered->rowCount();
}

int ComparisonTablePanel::rowCount() const {
    return m_model->rowCount();
}

QString ComparisonTablePanel::filterText() const {
    return m_filter->text().trimmed();
}

void ComparisonTablePanel::updateRowCount() {
    m_rowCount->setText(tr("%1 of %2 rows").arg(m_filtered->rowCount()).arg(m_model->rowCount()));
}

QString ComparisonTablePanel::methodSummary() const {
    // What judged each change, counted over the rows shown: the verdicts are paired where the
    // runs were interleaved, not one test for the whole report.
    int paired = 0;
    int welch = 0;
    for (int row = 0; row < m_filtered->rowCount(); ++row) {
        const app::ComparisonRow* shown =
            m_model->rowAt(m_filtered->mapToSource(m_filtered->index(row, 0)).row());
        if (shown && shown->method)
            ++(*shown->method == app::ComparisonMethod::Paired ? paired : welch);
    }
    const QString rule =
        tr("Changes: ratio to the baseline with its 95% interval, significant when the interval "
           "excludes 0%; the Test column names how each was judged: paired by repetition "
           "(interleaved runs) or Welch (independent samples)");
    if (paired + welch == 0)
        return rule + QLatin1Char('.');
    return rule + tr(" — here %1 paired, %2 Welch.").arg(paired).arg(welch);
}

} // namespace loadscope::ui
