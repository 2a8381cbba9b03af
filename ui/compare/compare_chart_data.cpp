#include "ui/compare/compare_chart_data.h"

#include "app/session/level_naming.h"
#include "ui/common/chart_style.h"
#include "ui/common/plural.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <set>

namespace loadscope::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("loadscope::ui::CompareCharts", text);
}

QString axisTitle(app::Metric metric, app::TargetProtocol protocol) {
    return QStringLiteral("%1 (%2)").arg(app::metricLabel(metric, protocol),
                                         app::metricUnit(metric, protocol));
}

const app::Target* baselineOf(const app::Session& session, const app::Comparison& comparison) {
    return session.findTarget(comparison.baselineTargetId());
}

} // namespace

std::vector<const app::Target*> comparedTargets(const app::Session& session,
                                                const app::Comparison& comparison,
                                                app::TargetProtocol protocol) {
    const std::set<QUuid> compared(comparison.targetIds().begin(), comparison.targetIds().end());
    std::vector<const app::Target*> targets;
    for (const app::Target& target : session.targets) {
        if (target.protocol == protocol && compared.count(target.id))
            targets.push_back(&target);
    }
    return targets;
}

std::vector<app::TargetProtocol> comparedProtocols(const app::Session& session,
                                                   const app::Comparison& comparison) {
    std::vector<app::TargetProtocol> protocols;
    for (app::TargetProtocol protocol : app::targetProtocols()) {
        if (!comparedTargets(session, comparison, protocol).empty())
            protocols.push_back(protocol);
    }
    return protocols;
}

std::vector<int> comparedLevels(const app::Comparison& comparison,
                                const std::vector<const app::Target*>& targets) {
    std::vector<int> levels;
    for (int level : comparison.concurrencyLevels()) {
        const bool any = std::any_of(targets.begin(), targets.end(), [&](const app::Target* t) {
            return !comparison.rowsFor(t->id, level).empty();
        });
        if (any)
            levels.push_back(level);
    }
    return levels;
}

QString vsBaselineNote(const app::ComparisonRow& row, const QString& baselineName,
                       ChartAnnotations::LabelStyle* style) {
    using Style = ChartAnnotations::LabelStyle;
    *style = Style::Plain;
    // The bar's outlier marker: runs outside the IQR fences are in the bar,
    // and the label says so.
    const QString outliers =
        row.outlierCount > 0 ? QLatin1Char('\n') + plural(row.outlierCount, tr("! 1 outlier run"),
                                                          tr("! %1 outlier runs"))
                             : QString();
    if (row.verdict == app::Verdict::Baseline)
        return tr("baseline") + outliers;
    if (!row.vsBaselinePercent)
        return outliers.mid(1);
    const QString difference =
        tr("%1 vs %2").arg(formatPercent(*row.vsBaselinePercent), baselineName);
    switch (row.verdict) {
    case app::Verdict::Significant:
        *style = Style::Emphasis;
        return difference + outliers;
    case app::Verdict::WithinNoise:
        *style = Style::Muted;
        return difference + QLatin1Char('\n') + tr("(within noise)") + outliers;
    case app::Verdict::NotApplicable:
    case app::Verdict::Baseline:
        break;
    }
    *style = Style::Muted;
    return difference + QLatin1Char('\n') +
           (row.verdictNote.isEmpty() ? tr("(too few runs to judge)")
                                      : QStringLiteral("(n/a: %1)").arg(row.verdictNote)) +
           outliers;
}

ModeBarChartData modeBarChartData(const app::Session& session, const app::Comparison& comparison,
                                  app::Metric metric, app::TargetProtocol protocol,
                                  int concurrency) {
    ModeBarChartData data;
    const QString label = app::metricLabel(metric, protocol);
    const auto targets = comparedTargets(session, comparison, protocol);
    const app::LevelNaming naming(targets);
    const QString level = naming.levelText(concurrency);
    data.title = tr("%1 at %2").arg(label, level);
    data.axisTitle = axisTitle(metric, protocol);
    if (!app::metricApplies(metric, protocol)) {
        data.title = label;
        data.emptyText = tr("not measured for %1").arg(app::targetProtocolId(protocol));
        return data;
    }
    const app::Target* baseline = baselineOf(session, comparison);
    const QString baselineName = baseline ? baseline->displayName() : QString();
    for (const app::Target* target : targets) {
        const app::ComparisonRow* row = comparison.find(target->id, concurrency, metric);
        if (!row)
            continue;
        ModeBar bar;
        bar.targetId = target->id;
        bar.name = naming.targetName(*target);
        bar.colour = targetColour(*target);
        bar.mean = row->statistics.mean;
        bar.ciLow = row->statistics.ci95Low;
        bar.ciHigh = row->statistics.ci95High;
        bar.repetitions = row->statistics.n;
        bar.note = vsBaselineNote(*row, baselineName, &bar.noteStyle);
        data.bars.push_back(std::move(bar));
    }
    if (data.bars.empty() && concurrency <= 0) {
        // No level to name: nothing was measured yet.
        data.title = label;
        data.emptyText = tr("no results yet");
    } else if (data.bars.empty()) {
        data.emptyText = tr("no results at %1").arg(level);
    }
    return data;
}

ModeLineChartData scalingChartData(const app::Session& session, const app::Comparison& comparison,
                                   app::Metric metric, app::TargetProtocol protocol) {
    ModeLineChartData data;
    const auto targets = comparedTargets(session, comparison, protocol);
    const app::LevelNaming naming(targets);
    data.title = naming.namesConnections()
                     ? tr("%1 by connections").arg(app::metricLabel(metric, protocol))
                     : tr("%1 by concurrency").arg(app::metricLabel(metric, protocol));
    data.xTitle = naming.namesConnections() ? tr("%1, log scale").arg(naming.axisTitle())
                                            : tr("Concurrency (log scale)");
    data.yTitle = axisTitle(metric, protocol);
    for (const app::Target* target : targets) {
        ModeLine line;
        line.targetId = target->id;
        line.name = naming.targetName(*target);
        line.colour = targetColour(*target);
        for (int level : comparison.concurrencyLevels()) {
            const app::ComparisonRow* row = comparison.find(target->id, level, metric);
            if (!row)
                continue;
            line.points.append(QPointF(level, row->statistics.mean));
            if (row->statistics.ci95Low && row->statistics.ci95High)
                line.ranges.append(
                    {double(level), *row->statistics.ci95Low, *row->statistics.ci95High});
        }
        if (!line.points.isEmpty())
            data.lines.push_back(std::move(line));
    }
    if (data.lines.empty())
        data.emptyText = app::metricApplies(metric, protocol)
                             ? tr("no results yet")
                             : tr("not measured for %1").arg(app::targetProtocolId(protocol));
    return data;
}

std::optional<double> percentileScale(double percentile) {
    const double remaining = 1 - percentile / 100;
    if (remaining <= 0)
        return std::nullopt;
    return std::log10(1 / remaining);
}

ModeLineChartData
latencyDistributionData(const app::Session& session, const app::Comparison& comparison,
                        const std::map<QUuid, app::LatencyDistribution>& distributions,
                        app::TargetProtocol protocol, int concurrency) {
    ModeLineChartData data;
    const auto targets = comparedTargets(session, comparison, protocol);
    const app::LevelNaming naming(targets);
    data.title = tr("Latency by percentile at %1").arg(naming.levelText(concurrency));
    data.xTitle = tr("Percentile (log scale of 1/(1−p))");
    data.yTitle = tr("Latency (ms)");
    for (const app::Target* target : targets) {
        const auto found = distributions.find(target->id);
        if (found == distributions.end())
            continue;
        ModeLine line;
        line.targetId = target->id;
        line.name = naming.targetName(*target);
        line.colour = targetColour(*target);
        for (const app::LatencyPercentile& point : found->second.percentiles) {
            const auto x = percentileScale(point.percentile);
            if (x && *x <= kMaxPlottedPercentileScale)
                line.points.append(QPointF(*x, point.latencyMs));
        }
        if (!line.points.isEmpty())
            data.lines.push_back(std::move(line));
    }
    if (data.lines.empty() && concurrency <= 0) {
        data.title = tr("Latency by percentile");
        data.emptyText = tr("no results yet");
    } else if (data.lines.empty()) {
        data.emptyText = protocol == app::TargetProtocol::TcpStream
                             ? tr("not measured for %1").arg(app::targetProtocolId(protocol))
                             : tr("no latency figures at %1").arg(naming.levelText(concurrency));
    }
    return data;
}

} // namespace loadscope::ui
