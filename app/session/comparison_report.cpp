#include "app/session/comparison_report.h"

#include "app/session/capacity_comparison.h"
#include "app/session/level_naming.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

namespace loadscope::app {

namespace {

int decimalsFor(double value) {
    const double magnitude = std::fabs(value);
    if (magnitude >= 1000)
        return 0;
    if (magnitude >= 100)
        return 1;
    if (magnitude >= 10)
        return 2;
    return 3;
}

QString rowLabel(Metric metric, const QString& label, TargetProtocol protocol) {
    if (metric == Metric::RequestsPerSecond || metric == Metric::Failed)
        return label;
    return label + QStringLiteral(" (") + metricUnit(metric, protocol) + QLatin1Char(')');
}

// "mean ±half-interval", with `decimals` shared by the whole table row so
// that the modes line up; "*" marks imported figures.
QString cell(const ComparisonRow& row, int decimals) {
    const SampleStatistics& s = row.statistics;
    QString text = QString::number(s.mean, 'f', decimals);
    if (s.ci95High)
        text += QStringLiteral(" ±") + QString::number(*s.ci95High - s.mean, 'f', decimals);
    if (row.imported)
        text += QLatin1Char('*');
    if (row.outlierCount > 0)
        text += QLatin1Char('!');
    return text;
}

QString pad(const QString& text, qsizetype width, bool right) {
    const QString fill(std::max<qsizetype>(0, width - text.size()), QLatin1Char(' '));
    return right ? fill + text : text + fill;
}

// The protocol the level's rows are labelled in: the shared one, or nullopt
// when targets of several protocols meet at this level.
std::optional<TargetProtocol> sharedProtocol(const Session& session, const Comparison& comparison,
                                             int level) {
    std::optional<TargetProtocol> shared;
    for (size_t s = 0; s < comparison.series().size(); ++s) {
        const Target* target = session.findTarget(comparison.series()[s].targetId);
        if (!target || comparison.rowsFor(s, level).empty())
            continue;
        if (shared && *shared != target->protocol)
            return std::nullopt;
        shared = target->protocol;
    }
    return shared;
}

// "name [mode] (ab, closed-loop)": the mode when the name does not say it,
// the series when the target has several.
QString seriesTitle(const Session& session, const ComparisonSeries& series) {
    const Target* target = session.findTarget(series.targetId);
    QString title = target->displayName();
    if (title != target->modeLabel())
        title += QStringLiteral(" [") + target->modeLabel() + QLatin1Char(']');
    if (!series.label.isEmpty())
        title += QStringLiteral(" (") + series.label + QLatin1Char(')');
    return title;
}

QString levelTable(const Session& session, const Comparison& comparison, int level,
                   bool* anyImported, int* outliers) {
    // One column per series: a target whose results come from several tools
    // or load models gets one for each.
    std::vector<size_t> columns;
    for (size_t s = 0; s < comparison.series().size(); ++s) {
        if (!comparison.rowsFor(s, level).empty())
            columns.push_back(s);
    }
    const std::optional<TargetProtocol> protocol = sharedProtocol(session, comparison, level);

    // Each target takes two physical columns: the figure and its change
    // against the baseline (right-aligned so the signs line up).
    std::vector<QStringList> lines;
    QStringList header{QString()};
    int maxRuns = 0;
    for (size_t s : columns) {
        header << seriesTitle(session, comparison.series()[s]) << QString();
        for (const ComparisonRow* row : comparison.rowsFor(s, level))
            maxRuns = std::max(maxRuns, row->statistics.n);
    }
    lines.push_back(header);
    for (const MetricInfo& info : metricRegistry()) {
        std::vector<const ComparisonRow*> rows;
        double largest = 0;
        for (size_t s : columns) {
            const ComparisonRow* row = comparison.find(s, level, info.metric);
            rows.push_back(row);
            if (row)
                largest = std::max(largest, std::fabs(row->statistics.mean));
        }
        if (std::none_of(rows.begin(), rows.end(), [](const ComparisonRow* r) { return r; }))
            continue;
        // A profile's role or path no mode spent time on (a relay without a
        // proxy, OVS without a switch) is a row of zeros: left out.
        if (isProfileMetric(info.metric) && largest < metricResolution(info.metric))
            continue;
        // Counts are whole numbers; everything else gets the decimals of its size.
        const int decimals = info.metric == Metric::Failed ? 0 : decimalsFor(largest);
        const QString label = protocol ? metricLabel(info.metric, *protocol) : info.label;
        QStringList line{rowLabel(info.metric, label, protocol.value_or(TargetProtocol::Http))};
        for (const ComparisonRow* row : rows) {
            line << (row ? cell(*row, decimals) : QStringLiteral("-"));
            line << (row && row->vsBaselinePercent ? formatPercent(*row->vsBaselinePercent)
                                                   : QString());
            *anyImported |= row && row->imported;
            *outliers += row ? row->outlierCount : 0;
        }
        lines.push_back(line);
    }

    std::vector<qsizetype> widths(size_t(header.size()), 0);
    for (size_t n = 1; n < lines.size(); ++n) {
        for (qsizetype i = 0; i < lines[n].size(); ++i)
            widths[size_t(i)] = std::max(widths[size_t(i)], lines[n][i].size());
    }
    // A title longer than its figures widens the change column, which is
    // right-aligned, so the figures stay under the title's start.
    for (qsizetype i = 1; i + 1 < header.size(); i += 2) {
        const qsizetype span = widths[size_t(i)] + 2 + widths[size_t(i + 1)];
        widths[size_t(i + 1)] += std::max<qsizetype>(0, header[i].size() - span);
    }
    // The level's name follows the targets, as in the window (level_naming.h):
    // "Concurrency 10", or "10 connections × 10 streams" for HTTP/2 ones.
    std::vector<const Target*> targets;
    for (size_t s : columns)
        if (const Target* target = session.findTarget(comparison.series()[s].targetId))
            targets.push_back(target);
    const LevelNaming naming(targets);
    const QString levelName = naming.namesConnections()
                                  ? naming.levelText(level)
                                  : QStringLiteral("Concurrency %1").arg(level);
    QString text = QStringLiteral("%1 (%2 %3)\n")
                       .arg(levelName)
                       .arg(maxRuns)
                       .arg(maxRuns == 1 ? QStringLiteral("run") : QStringLiteral("runs"));
    for (size_t n = 0; n < lines.size(); ++n) {
        const QStringList& line = lines[n];
        QString out = pad(line[0], widths[0], false);
        for (qsizetype i = 1; i < line.size(); ++i) {
            const bool percentColumn = i % 2 == 0;
            if (n == 0 && !percentColumn) {
                // A title spans its figure and change columns.
                const qsizetype span = widths[size_t(i)] + 2 + widths[size_t(i + 1)];
                out += QStringLiteral("   ") + pad(line[i], span, false);
                ++i;
                continue;
            }
            out += (percentColumn ? QStringLiteral("  ") : QStringLiteral("   ")) +
                   pad(line[i], widths[size_t(i)], percentColumn);
        }
        while (out.endsWith(QLatin1Char(' ')))
            out.chop(1);
        text += out + QLatin1Char('\n');
    }
    return text;
}

} // namespace

QString formatFigure(double value) {
    return QString::number(value, 'f', decimalsFor(value));
}

QString formatPercent(double percent) {
    return QString::asprintf("%+.1f%%", percent);
}

QString verdictLine(const Target* target, const Target* baseline, const ComparisonRow& row,
                    const QString& what) {
    if (!target || !baseline || row.verdict == Verdict::Baseline ||
        (!row.vsBaselinePercent && row.verdictNote.isEmpty()))
        return {};
    QString verdict;
    switch (row.verdict) {
    case Verdict::Significant:
        verdict = QStringLiteral("significant");
        break;
    case Verdict::WithinNoise:
        verdict = QStringLiteral("within noise");
        break;
    case Verdict::Baseline:
    case Verdict::NotApplicable:
        verdict = QStringLiteral("n/a: ") + row.verdictNote;
        break;
    }
    if (row.method)
        verdict += QStringLiteral(", ") + comparisonMethodId(*row.method);
    if (!row.vsBaselinePercent)
        return QStringLiteral("%1: %2 vs %3 (%4)")
            .arg(target->displayName(), what, baseline->displayName(), verdict);
    QString change = formatPercent(*row.vsBaselinePercent);
    if (row.vsBaselineLowPercent && row.vsBaselineHighPercent)
        change += QStringLiteral(" [%1, %2]")
                      .arg(formatPercent(*row.vsBaselineLowPercent),
                           formatPercent(*row.vsBaselineHighPercent));
    return QStringLiteral("%1: %2 %3 vs %4 (%5)")
        .arg(target->displayName(), change, what, baseline->displayName(), verdict);
}

QString verdictLine(const Session& session, const ComparisonRow& row) {
    const Target* target = session.findTarget(row.targetId);
    if (!target)
        return {};
    return verdictLine(target, session.baseline(), row,
                       metricLabel(row.metric, target->protocol).toLower());
}

QString comparisonReport(const Session& session, const Comparison& comparison) {
    QString text;
    if (!session.name.trimmed().isEmpty())
        text += QStringLiteral("Session: ") + session.name.trimmed() + QLatin1Char('\n');
    const size_t planned = sweepPoints(session).size();
    const size_t missing = missingPoints(session).size();
    text += QStringLiteral("Targets: %1, results: %2, planned points done: %3 of %4\n")
                .arg(session.targets.size())
                .arg(session.results.size())
                .arg(planned - missing)
                .arg(planned);
    const Target* baseline = session.baseline();
    // A capacity plan's searches come first: they are what it was run for.
    const QString capacity = capacityReport(session, CapacityComparison(session));
    if (!capacity.isEmpty())
        text += QLatin1Char('\n') + capacity;
    if (comparison.isEmpty() || !baseline) {
        if (capacity.isEmpty())
            text += QStringLiteral("No results to compare yet.\n");
        return text;
    }
    if (!capacity.isEmpty())
        text += QLatin1Char('\n');
    text +=
        QStringLiteral("Baseline: %1. Figures: mean ±half the 95% confidence interval over "
                       "the runs. Changes: geometric mean ratio to the baseline [95% interval], "
                       "paired by repetition where the runs were interleaved, else Welch's; "
                       "significant when the interval excludes 0%.\n")
            .arg(baseline->displayName());

    const bool pooled = std::any_of(
        comparison.series().begin(), comparison.series().end(), [](const ComparisonSeries& s) {
            return s.pooled &&
                   (s.tool.contains(QLatin1Char('+')) || s.loadModel.contains(QLatin1Char('+')));
        });
    if (pooled)
        text += QStringLiteral("Pooled on request: a target's results of different tools or "
                               "load models are averaged as repetitions of one figure.\n");

    bool anyImported = false;
    int outliers = 0;
    for (int level : comparison.concurrencyLevels()) {
        text += QLatin1Char('\n') + levelTable(session, comparison, level, &anyImported, &outliers);
        QStringList verdicts;
        for (size_t s = 0; s < comparison.series().size(); ++s) {
            const Target* target = session.findTarget(comparison.series()[s].targetId);
            if (!target || target->id == baseline->id)
                continue;
            for (Metric metric : {primaryMetric(target->protocol), Metric::LatencyP99}) {
                if (const ComparisonRow* row = comparison.find(s, level, metric)) {
                    QString line = verdictLine(session, *row);
                    const QString& label = comparison.series()[s].label;
                    if (!line.isEmpty() && !label.isEmpty())
                        line.replace(0, target->displayName().size(),
                                     target->displayName() + QStringLiteral(" (") + label +
                                         QLatin1Char(')'));
                    if (!line.isEmpty())
                        verdicts << QStringLiteral("  ") + line;
                }
            }
        }
        if (!verdicts.isEmpty())
            text += QLatin1Char('\n') + verdicts.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    if (anyImported)
        text += QStringLiteral("\n* includes results imported from another tool's report\n");
    if (outliers > 0)
        text += QStringLiteral("\n! %1 %2 outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] of their runs: "
                               "kept in every figure, look at those runs\n")
                    .arg(outliers)
                    .arg(outliers == 1 ? QStringLiteral("run's figure is")
                                       : QStringLiteral("runs' figures are"));
    return text;
}

} // namespace loadscope::app
