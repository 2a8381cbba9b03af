#pragma once

#include "app/session/comparison.h"
#include "app/session/level_naming.h"
#include "app/session/session.h"

#include <QAbstractTableModel>
#include <QColor>
#include <memory>
#include <optional>
#include <vector>

namespace loadscope::ui {

// The comparison table as the charts read it: one row per target, level and
// metric with mean, spread, interval, the change against the baseline with its
// interval, the test that judged it (paired or Welch) and the verdict. Display
// text is formatted for reading; kSortRole gives numbers for sorting and
// kCopyRole plain values for spreadsheets; a series name is whole in its
// tooltip, however narrow its column.
class ComparisonTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        TargetColumn,
        ModeColumn,
        ConcurrencyColumn,
        MetricColumn,
        UnitColumn,
        RepetitionsColumn,
        MeanColumn,
        SdColumn,
        CiLowColumn,
        CiHighColumn,
        VsBaselineColumn, // the change with its 95% interval: "−13.2% [−20.1, −6.0]"
        PValueColumn,
        MethodColumn, // the test that judged the change: paired or Welch
        VerdictColumn,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit ComparisonTableModel(QObject* parent = nullptr);

    // Shows the rows of targets of `protocol` (every row when nullopt).
    void setComparison(const app::Session& session,
                       std::shared_ptr<const app::Comparison> comparison,
                       std::optional<app::TargetProtocol> protocol);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const app::ComparisonRow* rowAt(int row) const;

private:
    struct TargetInfo {
        QString name;
        QString mode;
        QColor colour;
        app::TargetProtocol protocol = app::TargetProtocol::Http;
    };
    struct Row {
        const app::ComparisonRow* row = nullptr;
        int target = 0; // index into m_targets
    };

    QString seriesName(const Row& row) const;
    QVariant displayText(const Row& row, int column) const;
    QVariant sortValue(const Row& row, int column) const;
    QVariant copyText(const Row& row, int column) const;

    std::shared_ptr<const app::Comparison> m_comparison;
    std::vector<TargetInfo> m_targets;
    std::vector<Row> m_rows;
    app::LevelNaming m_levelNaming;
};

} // namespace loadscope::ui
