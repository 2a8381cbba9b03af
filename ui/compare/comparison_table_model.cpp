#include "ui/compare/comparison_table_model.h"

#include "ui/common/chart_style.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/plural.h"
#include "ui/common/table_copy.h"

#include <QFont>
#include <QHash>

namespace loadscope::ui {

namespace {

QString verdictText(app::Verdict verdict) {
    switch (verdict) {
    case app::Verdict::Baseline:
        return ComparisonTableModel::tr("baseline");
    case app::Verdict::NotApplicable:
        break;
    case app::Verdict::WithinNoise:
        return ComparisonTableModel::tr("within noise");
    case app::Verdict::Significant:
        return ComparisonTableModel::tr("significant");
    }
    return ComparisonTableModel::tr("n/a");
}

QVariant optionalNumber(const std::optional<double>& value) {
    return value ? QVariant(*value) : QVariant();
}

QString plain(double value) {
    return QString::number(value, 'g', 10);
}

// An end of the change's interval: signed, one decimal, without the per cent sign that the
// change before it carries ("−20.1", "+3.0").
QString intervalEnd(double percent) {
    QString text = formatPercent(percent);
    text.chop(1);
    return text == QLatin1String("±0.0") ? QStringLiteral("0.0") : text;
}

QString methodText(app::ComparisonMethod method) {
    return method == app::ComparisonMethod::Paired ? ComparisonTableModel::tr("paired")
                                                   : ComparisonTableModel::tr("Welch");
}

} // namespace

ComparisonTableModel::ComparisonTableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ComparisonTableModel::setComparison(const app::Session& session,
                                         std::shared_ptr<const app::Comparison> comparison,
                                         std::optional<app::TargetProtocol> protocol) {
    beginResetModel();
    m_comparison = std::move(comparison);
    m_targets.clear();
    m_rows.clear();
    m_levelNaming = app::LevelNaming();
    if (m_comparison) {
        QHash<QUuid, int> targetIndex;
        for (const app::Target& target : session.targets) {
            targetIndex.insert(target.id, int(m_targets.size()));
            m_targets.push_back(TargetInfo{target.displayName(), target.modeLabel(),
                                           targetColour(target), target.protocol});
        }
        m_rows.reserve(m_comparison->rows().size());
        for (const app::ComparisonRow& row : m_comparison->rows()) {
            const auto found = targetIndex.constFind(row.targetId);
            if (found == targetIndex.cend())
                continue;
            if (protocol && m_targets[size_t(*found)].protocol != *protocol)
                continue;
            m_rows.push_back(Row{&row, *found});
        }
        // The level column and the names say what a level is for the targets shown.
        std::vector<bool> shown(m_targets.size(), false);
        for (const Row& row : m_rows)
            shown[size_t(row.target)] = true;
        std::vector<const app::Target*> shownTargets;
        for (size_t i = 0; i < session.targets.size(); ++i)
            if (shown[i])
                shownTargets.push_back(&session.targets[i]);
        m_levelNaming = app::LevelNaming(shownTargets);
        for (size_t i = 0; i < session.targets.size(); ++i)
            m_targets[i].name = m_levelNaming.targetName(session.targets[i]);
    }
    endResetModel();
}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const app::ComparisonRow* ComparisonTableModel::rowAt(int row) const {
    return row >= 0 && row < rowCount() ? m_rows[size_t(row)].row : nullptr;
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayText(row, column);
    case kSortRole:
        return sortValue(row, column);
    case kCopyRole:
        return copyText(row, column);
    case Qt::DecorationRole:
        if (column == TargetColumn)
            return m_targets[size_t(row.target)].colour;
        return {};
    case Qt::TextAlignmentRole:
        if (column >= ConcurrencyColumn && column != MetricColumn && column != UnitColumn &&
            column != MethodColumn && column != VerdictColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::FontRole:
        if (column == VerdictColumn || column == VsBaselineColumn) {
            QFont font;
            font.setItalic(row.row->verdict == app::Verdict::WithinNoise);
            font.setBold(row.row->verdict == app::Verdict::Significant);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        // The whole name, whatever the column's width left of it.
        if (column == TargetColumn)
            return seriesName(row);
        if (column == RepetitionsColumn && (row.row->noisy > 0 || row.row->netMarked > 0)) {
            // A paragraph each.
            QString tip;
            if (row.row->noisy > 0)
                tip += wrappedToolTip(tr("%1 of %2 repetitions were noisy: %3")
                                          .arg(row.row->noisy)
                                          .arg(row.row->statistics.n)
                                          .arg(row.row->noise));
            if (row.row->netMarked > 0)
                tip += wrappedToolTip(
                    tr("%1 of %2 repetitions lost or refused packets in the network stack: %3")
                        .arg(row.row->netMarked)
                        .arg(row.row->statistics.n)
                        .arg(row.row->netNote));
            return tip;
        }
        if (column == MetricColumn || column == MeanColumn)
            return metricToolTip(row.row->metric, m_targets[size_t(row.target)].protocol);
        if (column == VsBaselineColumn && row.row->vsBaselineLowPercent &&
            row.row->vsBaselineHighPercent)
            return tr("95% interval: %1 to %2")
                .arg(formatPercent(*row.row->vsBaselineLowPercent),
                     formatPercent(*row.row->vsBaselineHighPercent));
        if (column == VerdictColumn || column == PValueColumn || column == MethodColumn)
            return wrappedToolTip(
                tr("The change against the baseline at the same concurrency, with its 95% "
                   "interval: paired by repetition (the geometric mean of the per-run ratios) "
                   "when the runs were interleaved, else Welch's on the log figures. Significant "
                   "when the interval excludes 0%, otherwise within run-to-run noise; n/a with "
                   "fewer than two repetitions on a side, no spread on either side, or a figure "
                   "below its resolution. Outliers: runs outside [Q1 − 1.5 IQR, Q3 + 1.5 IQR], "
                   "kept in every figure."));
        return {};
    default:
        return {};
    }
}

QString ComparisonTableModel::seriesName(const Row& row) const {
    // A target measured by several tools or load models has a row for each.
    const QString& name = m_targets[size_t(row.target)].name;
    const QString& label = m_comparison->series()[row.row->series].label;
    return label.isEmpty() ? name : name + QStringLiteral(" (") + label + QLatin1Char(')');
}

QVariant ComparisonTableModel::displayText(const Row& row, int column) const {
    const app::ComparisonRow& r = *row.row;
    const TargetInfo& target = m_targets[size_t(row.target)];
    switch (column) {
    case TargetColumn:
        return seriesName(row);
    case ModeColumn:
        return target.mode;
    case ConcurrencyColumn:
        return r.concurrency;
    case MetricColumn:
        return app::metricLabel(r.metric, target.protocol);
    case UnitColumn:
        return app::metricUnit(r.metric, target.protocol);
    case RepetitionsColumn: {
        // The noise marker: how many of the repetitions ran on a busy machine; the network
        // marker: how many lost or refused packets in the network stack.
        QString text = QString::number(r.statistics.n);
        if (r.noisy > 0)
            text += QStringLiteral(" \u26A0%1").arg(r.noisy);
        if (r.netMarked > 0)
            text += QStringLiteral(" \u2691%1").arg(r.netMarked);
        return r.noisy > 0 || r.netMarked > 0 ? QVariant(text) : QVariant(r.statistics.n);
    }
    case MeanColumn:
        return formatValue(r.statistics.mean);
    case SdColumn:
        return r.statistics.sd ? formatValue(*r.statistics.sd) : QString();
    case CiLowColumn:
        return r.statistics.ci95Low ? formatValue(*r.statistics.ci95Low) : QString();
    case CiHighColumn:
        return r.statistics.ci95High ? formatValue(*r.statistics.ci95High) : QString();
    case VsBaselineColumn: {
        if (!r.vsBaselinePercent)
            return QString();
        QString text = formatPercent(*r.vsBaselinePercent);
        if (r.vsBaselineLowPercent && r.vsBaselineHighPercent)
            text += QStringLiteral(" [%1, %2]")
                        .arg(intervalEnd(*r.vsBaselineLowPercent),
                             intervalEnd(*r.vsBaselineHighPercent));
        return text;
    }
    case PValueColumn:
        return r.pValue ? QString::number(*r.pValue, 'g', 2) : QString();
    case MethodColumn:
        return r.method ? methodText(*r.method) : QString();
    case VerdictColumn: {
        // "significant", "n/a: below resolution", then the outliers.
        QString text = verdictText(r.verdict);
        if (r.verdict == app::Verdict::NotApplicable && !r.verdictNote.isEmpty())
            text += QStringLiteral(": ") + r.verdictNote;
        if (r.outlierCount > 0)
            text +=
                QStringLiteral(", ") + plural(r.outlierCount, tr("1 outlier"), tr("%1 outliers"));
        return text;
    }
    default:
        return {};
    }
}

QVariant ComparisonTableModel::sortValue(const Row& row, int column) const {
    const app::ComparisonRow& r = *row.row;
    switch (column) {
    case TargetColumn:
        // Session order, not alphabetical; a target's series in comparison order.
        return qulonglong(row.target) * 1'000'000 + row.row->series;
    case RepetitionsColumn:
        return r.statistics.n;
    case MeanColumn:
        return r.statistics.mean;
    case SdColumn:
        return optionalNumber(r.statistics.sd);
    case CiLowColumn:
        return optionalNumber(r.statistics.ci95Low);
    case CiHighColumn:
        return optionalNumber(r.statistics.ci95High);
    case VsBaselineColumn:
        return optionalNumber(r.vsBaselinePercent);
    case PValueColumn:
        return optionalNumber(r.pValue);
    case MetricColumn:
        return int(r.metric); // registry order
    default:
        return displayText(row, column);
    }
}

QVariant ComparisonTableModel::copyText(const Row& row, int column) const {
    const app::ComparisonRow& r = *row.row;
    const auto optionalText = [](const std::optional<double>& value) {
        return value ? plain(*value) : QString();
    };
    switch (column) {
    case MeanColumn:
        return plain(r.statistics.mean);
    case SdColumn:
        return optionalText(r.statistics.sd);
    case CiLowColumn:
        return optionalText(r.statistics.ci95Low);
    case CiHighColumn:
        return optionalText(r.statistics.ci95High);
    case VsBaselineColumn:
        return optionalText(r.vsBaselinePercent);
    case PValueColumn:
        return optionalText(r.pValue);
    case VerdictColumn:
        return app::verdictId(r.verdict);
    case MethodColumn:
        return r.method ? app::comparisonMethodId(*r.method) : QString();
    default:
        return displayText(row, column).toString();
    }
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole && section == VsBaselineColumn)
        return wrappedToolTip(tr("The change against the baseline at the same level in "
                                 "percent, with its 95% interval in brackets: the geometric "
                                 "mean ratio, on the log scale."));
    if (role == Qt::ToolTipRole && section == MethodColumn)
        return wrappedToolTip(tr("How the change was judged: paired by repetition when the "
                                 "runs were interleaved and both sides hold the same "
                                 "repetitions, else Welch's interval for independent samples."));
    if (role == Qt::ToolTipRole && section == ConcurrencyColumn && m_levelNaming.namesConnections())
        return wrappedToolTip(tr("The sweep's level: connections. An HTTP/2 target keeps its "
                                 "streams open on each, so its concurrency is connections × "
                                 "streams."));
    if (role == Qt::ToolTipRole && (section == CiLowColumn || section == CiHighColumn))
        return wrappedToolTip(tr("95% confidence interval of the mean over the repetitions "
                                 "(Student's t)."));
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case TargetColumn:
        return tr("Target");
    case ModeColumn:
        return tr("Mode");
    case ConcurrencyColumn:
        return m_levelNaming.axisTitle();
    case MetricColumn:
        return tr("Metric");
    case UnitColumn:
        return tr("Unit");
    case RepetitionsColumn:
        return tr("Runs");
    case MeanColumn:
        return tr("Mean");
    case SdColumn:
        return tr("SD");
    case CiLowColumn:
        return tr("95% CI low");
    case CiHighColumn:
        return tr("95% CI high");
    case VsBaselineColumn:
        return tr("Change [95% CI]");
    case PValueColumn:
        return tr("p");
    case MethodColumn:
        return tr("Test");
    case VerdictColumn:
        return tr("Verdict");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace loadscope::ui
