#include "ui/run/run_log_model.h"

#include "app/common/printable_text.h"
#include "app/report/agent_report.h"
#include "ui/common/chart_style.h"
#include "ui/common/table_copy.h"

#include <QBrush>
#include <QStringList>

namespace loadscope::ui {

namespace {

// A failure in red; a note that only says the point was noisy, or that the
// network stack lost packets, in amber: a warning about its figures, not a failure.
const QColor kFailureColour(0xb0, 0x20, 0x20);
const QColor kNoiseColour(0x8a, 0x5a, 0x00);

// The noise note first, then what the network stack lost, then the error, then each host's part.
QString noteText(const RunLogModel::Entry& entry) {
    QStringList parts;
    if (!entry.noise.isEmpty())
        parts << QStringLiteral("noisy: ") + entry.noise;
    if (!entry.network.isEmpty())
        parts << QStringLiteral("network: ") + entry.network;
    if (!entry.error.isEmpty())
        parts << entry.error;
    if (!entry.agents.isEmpty())
        parts << QStringLiteral("hosts: ") + entry.agents;
    return parts.join(QStringLiteral("; "));
}

QString optionalText(const std::optional<double>& value) {
    return value ? formatValue(*value) : QString();
}

QString optionalPlain(const std::optional<double>& value) {
    return value ? QString::number(*value, 'g', 10) : QString();
}

} // namespace

RunLogModel::RunLogModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void RunLogModel::appendFinished(const app::SweepPoint& point, int pointCount,
                                 const QString& target, const QColor& colour,
                                 const app::PointResult& result) {
    Entry entry = entryFor(point, pointCount, target, colour);
    if (result.durationSeconds > 0) {
        entry.requestsPerSecond = result.requestsPerSecond();
        entry.transferKiBps = result.transferRateKiBps();
    }
    entry.meanMs = result.total.meanMs;
    entry.p99Ms = result.total.percentile(99);
    entry.complete = result.complete;
    entry.failed = result.failed;
    entry.error = app::printableText(result.firstError); // a server's words, escaped
    entry.noise = result.noise;
    entry.network = app::netCounterMark(result.net);
    entry.agents = app::agentSharesSummary(result.agents);
    append(std::move(entry));
}

void RunLogModel::appendFailed(const app::SweepPoint& point, int pointCount, const QString& target,
                               const QColor& colour, const QString& error) {
    Entry entry = entryFor(point, pointCount, target, colour);
    entry.error = app::printableText(error);
    entry.pointFailed = true;
    append(std::move(entry));
}

RunLogModel::Entry RunLogModel::entryFor(const app::SweepPoint& point, int pointCount,
                                         const QString& target, const QColor& colour) {
    Entry entry;
    entry.index = point.index;
    entry.pointCount = pointCount;
    entry.finishedAt = QTime::currentTime();
    entry.target = target;
    entry.colour = colour;
    entry.concurrency = point.concurrency;
    entry.repetition = point.repetition;
    return entry;
}

void RunLogModel::append(Entry entry) {
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_entries.push_back(std::move(entry));
    endInsertRows();
}

void RunLogModel::clear() {
    if (m_entries.empty())
        return;
    beginResetModel();
    m_entries.clear();
    endResetModel();
}

void RunLogModel::setRateLabel(const QString& label) {
    if (label == m_rateLabel)
        return;
    m_rateLabel = label;
    Q_EMIT headerDataChanged(Qt::Horizontal, RequestsPerSecondColumn, RequestsPerSecondColumn);
}

int RunLogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_entries.size());
}

int RunLogModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunLogModel::display(const Entry& entry, int column) const {
    switch (column) {
    case PointColumn:
        return tr("%1 of %2").arg(entry.index + 1).arg(entry.pointCount);
    case TimeColumn:
        return entry.finishedAt.toString(QStringLiteral("HH:mm:ss"));
    case TargetColumn:
        return entry.target;
    case ConcurrencyColumn:
        return entry.concurrency;
    case RepetitionColumn:
        return entry.repetition + 1;
    case RequestsPerSecondColumn:
        return optionalText(entry.requestsPerSecond);
    case TransferColumn:
        return optionalText(entry.transferKiBps);
    case MeanColumn:
        return optionalText(entry.meanMs);
    case P99Column:
        return optionalText(entry.p99Ms);
    case CompleteColumn:
        return entry.pointFailed ? QString() : formatValue(double(entry.complete));
    case FailedColumn:
        return entry.pointFailed ? QString() : formatValue(double(entry.failed));
    case NoteColumn:
        return entry.pointFailed ? tr("point failed: %1").arg(entry.error) : noteText(entry);
    default:
        return {};
    }
}

QVariant RunLogModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& entry = m_entries[size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(entry, column);
    case kCopyRole:
        switch (column) {
        case RequestsPerSecondColumn:
            return optionalPlain(entry.requestsPerSecond);
        case TransferColumn:
            return optionalPlain(entry.transferKiBps);
        case MeanColumn:
            return optionalPlain(entry.meanMs);
        case P99Column:
            return optionalPlain(entry.p99Ms);
        case CompleteColumn:
            return entry.pointFailed ? QString() : QString::number(entry.complete);
        case FailedColumn:
            return entry.pointFailed ? QString() : QString::number(entry.failed);
        default:
            return display(entry, column);
        }
    case Qt::DecorationRole:
        if (column == TargetColumn)
            return entry.colour;
        return {};
    case Qt::ForegroundRole:
        if (entry.pointFailed || (column == FailedColumn && entry.failed > 0) ||
            (column == NoteColumn && !entry.error.isEmpty()))
            return QBrush(kFailureColour);
        if (column == NoteColumn && !(entry.noise.isEmpty() && entry.network.isEmpty()))
            return QBrush(kNoiseColour);
        return {};
    case Qt::ToolTipRole:
        if (column == NoteColumn && !noteText(entry).isEmpty())
            return noteText(entry);
        return {};
    case Qt::TextAlignmentRole:
        if (column == TargetColumn || column == NoteColumn)
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant RunLogModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case PointColumn:
        return tr("Point");
    case TimeColumn:
        return tr("Finished");
    case TargetColumn:
        return tr("Target");
    case ConcurrencyColumn:
        return tr("Concurrency");
    case RepetitionColumn:
        return tr("Run");
    case RequestsPerSecondColumn:
        return m_rateLabel.isEmpty() ? tr("Requests/s") : m_rateLabel;
    case TransferColumn:
        return tr("Transfer (KiB/s)");
    case MeanColumn:
        return tr("Mean (ms)");
    case P99Column:
        return tr("p99 (ms)");
    case CompleteColumn:
        return tr("Complete");
    case FailedColumn:
        return tr("Failed");
    case NoteColumn:
        return tr("Notes");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace loadscope::ui
