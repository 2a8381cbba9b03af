#include "ui/compare/capacity_chart_data.h"

#include "ui/common/chart_style.h"

#include <QCoreApplication>
#include <algorithm>
#include <set>

namespace loadscope::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("loadscope::ui::CapacityCharts", text);
}

QColor colourOf(const app::Session& session, const QUuid& targetId) {
    const app::Target* target = session.findTarget(targetId);
    return target ? targetColour(*target) : QColor(Qt::gray);
}

QString nameOf(const app::Session& session, const QUuid& targetId) {
    const app::Target* target = session.findTarget(targetId);
    return target ? target->displayName() : QString();
}

} // namespace

ModeBarChartData capacityBarChartData(const app::Session& session,
                                      const app::CapacityComparison& comparison) {
    ModeBarChartData data;
    const QString label = app::capacityLabel(comparison.objective());
    data.title = label.left(1).toUpper() + label.mid(1);
    data.axisTitle = tr("Highest offered requests/s that met it");
    const QString baseline = nameOf(session, comparison.baselineTargetId());
    for (const app::CapacityRow& row : comparison.rows()) {
        ModeBar bar;
        bar.targetId = row.targetId;
        bar.name = nameOf(session, row.targetId);
        bar.colour = colourOf(session, row.targetId);
        const app::SampleStatistics& s = row.figures.statistics;
        if (s.n > 0) {
            bar.mean = s.mean;
            bar.ciLow = s.ci95Low;
            bar.ciHigh = s.ci95High;
            bar.repetitions = s.n;
            bar.note = vsBaselineNote(row.figures, baseline, &bar.noteStyle);
        } else {
            bar.noteStyle = ChartAnnotations::LabelStyle::Muted;
            if (!row.lowerBounds.empty())
                bar.note = tr("≥ %1\n(client-limited)")
                               .arg(formatValue(*std::min_element(row.lowerBounds.begin(),
                                                                  row.lowerBounds.end())));
            else if (row.noRateMeets > 0)
                bar.note = tr("no rate\nmeets it");
            else
                bar.note = tr("searching");
        }
        if (row.clientLimited > 0 && s.n > 0)
            bar.note += tr("\n%1 client-limited").arg(row.clientLimited);
        data.bars.push_back(std::move(bar));
    }
    if (data.bars.empty())
        data.emptyText = tr("no capacity searches");
    return data;
}

RateChartData capacityStepsChartData(const app::Session& session,
                                     const app::CapacityComparison& comparison) {
    RateChartData data;
    const app::CapacityObjective& objective = comparison.objective();
    const QString percentile = app::objectivePercentileLabel(objective.percentile);
    data.title = tr("Capacity searches: latency %1 against throughput").arg(percentile);
    data.xTitle = tr("Achieved requests/s (log)");
    data.yTitle = tr("Latency %1, corrected (ms, log)").arg(percentile);
    data.objectiveMs = objective.boundMs;
    data.objectiveName = tr("objective %1").arg(app::objectiveText(objective));
    std::set<QUuid> named;
    for (const app::CapacitySearch& search : comparison.searches()) {
        if (search.steps.empty())
            continue;
        RateLine line;
        line.targetId = search.targetId;
        line.name = nameOf(session, search.targetId);
        line.colour = colourOf(session, search.targetId);
        line.inLegend = named.insert(search.targetId).second;
        std::vector<const app::CapacityStepRecord*> steps;
        for (const app::CapacityStepRecord& step : search.steps)
            steps.push_back(&step);
        std::sort(steps.begin(), steps.end(),
                  [](const auto* a, const auto* b) { return a->rate < b->rate; });
        for (const app::CapacityStepRecord* step : steps) {
            const double achieved = step->result->requestsPerSecond();
            const std::optional<double> latency = step->judgement.latencyMs;
            // A log axis has no place for 0.
            if (!latency || *latency <= 0 || achieved <= 0)
                continue;
            line.points.append(QPointF(achieved, *latency));
            line.offeredRates.append(step->rate);
            if (search.highestMet && step == &search.steps[*search.highestMet]) {
                line.knee = QPointF(achieved, *latency);
                line.kneeRate = step->rate;
            }
        }
        data.lines.push_back(std::move(line));
    }
    if (data.lines.empty())
        data.emptyText = tr("no capacity searches");
    return data;
}

} // namespace loadscope::ui
