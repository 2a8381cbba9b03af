#pragma once

#include "app/session/point_result.h"
#include "app/session/sweep_plan.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QTime>
#include <optional>
#include <vector>

namespace loadscope::ui {

// The Run page's log: one row per point that finished or failed, with the
// figures a user of ab looks at first, or the error.
class RunLogModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        PointColumn,
        TimeColumn,
        TargetColumn,
        ConcurrencyColumn,
        RepetitionColumn,
        RequestsPerSecondColumn,
        TransferColumn,
        MeanColumn,
        P99Column,
        CompleteColumn,
        FailedColumn,
        NoteColumn,
        ColumnCount
    };

    struct Entry {
        int index = 0; // 0-based position in the sweep
        int pointCount = 0;
        QTime finishedAt;
        QString target;
        QColor colour;
        int concurrency = 0;
        int repetition = 0; // 0-based
        // Absent when the point failed.
        std::optional<double> requestsPerSecond;
        std::optional<double> transferKiBps;
        std::optional<double> meanMs;
        std::optional<double> p99Ms;
        uint64_t complete = 0;
        uint64_t failed = 0;
        QString error; // the point's error, or the first failed request's (escaped)
        QString noise; // why the point's figures are noisy, empty when they are not
        // What the network stack lost or refused during the point (net_counters.h), or empty.
        QString network;
        // Each host's rate, CPU and saturation when the load came from several.
        QString agents;
        bool pointFailed = false;
    };

    explicit RunLogModel(QObject* parent = nullptr);

    void appendFinished(const app::SweepPoint& point, int pointCount, const QString& target,
                        const QColor& colour, const app::PointResult& result);
    void appendFailed(const app::SweepPoint& point, int pointCount, const QString& target,
                      const QColor& colour, const QString& error);
    void clear();
    const Entry& entry(int row) const { return m_entries[size_t(row)]; }
    // The rate column's title in the words of the session's protocol ("Transactions/s").
    void setRateLabel(const QString& label);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    // The columns every row has, finished or failed.
    static Entry entryFor(const app::SweepPoint& point, int pointCount, const QString& target,
                          const QColor& colour);
    void append(Entry entry);
    QVariant display(const Entry& entry, int column) const;

    std::vector<Entry> m_entries;
    QString m_rateLabel;
};

} // namespace loadscope::ui
