#include "app/session/statistics_precision.h"

#include "app/session/comparison.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>

namespace loadscope::app {

namespace {

// The interval's farther end from the estimate, as a percentage of it: how
// well the figure is known, in the units the plan asks it in.
std::optional<double> halfWidthOfChange(const ComparisonRow& row) {
    if (!row.vsBaselinePercent || !row.vsBaselineLowPercent || !row.vsBaselineHighPercent)
        return std::nullopt;
    const double ratio = 1 + *row.vsBaselinePercent / 100;
    if (!(ratio > 0))
        return std::nullopt;
    const double high = (1 + *row.vsBaselineHighPercent / 100) / ratio - 1;
    const double low = 1 - (1 + *row.vsBaselineLowPercent / 100) / ratio;
    return std::max(high, low) * 100;
}

std::optional<double> halfWidthOfMean(const ComparisonRow& row) {
    const SampleStatistics& s = row.statistics;
    if (!s.ci95High || s.mean == 0)
        return std::nullopt;
    return (*s.ci95High - s.mean) / std::fabs(s.mean) * 100;
}

// The runs' coefficient of variation in percent, what makes an interval wide.
QString scatter(const ComparisonRow& row) {
    const SampleStatistics& s = row.statistics;
    if (!s.sd || s.mean == 0)
        return QStringLiteral("?");
    return QString::number(*s.sd / std::fabs(s.mean) * 100, 'f', 1) + QStringLiteral(" %");
}

} // namespace

LevelPrecision levelPrecision(const Session& session, int concurrency) {
    LevelPrecision precision;
    precision.concurrency = concurrency;
    std::map<QUuid, int> counts;
    for (const PointResult& result : session.results) {
        if (!result.cancelled && result.concurrency == concurrency)
            ++counts[result.targetId];
    }
    precision.rounds = session.targets.empty() ? 0 : kMaxRepetitions;
    for (const Target& target : session.targets)
        precision.rounds = std::min(precision.rounds, counts[target.id]);

    const Comparison comparison(session);
    const Target* baseline = session.baseline();
    const bool againstBaseline = baseline && session.targets.size() > 1;
    const double wanted = session.plan.precisionPercent;
    for (const Target& target : session.targets) {
        if (againstBaseline && target.id == baseline->id)
            continue;
        const Metric metric = primaryMetric(target.protocol);
        const ComparisonRow* row = comparison.find(target.id, concurrency, metric);
        LoosePrecision loose;
        loose.targetId = target.id;
        if (row)
            loose.halfWidthPercent =
                againstBaseline ? halfWidthOfChange(*row) : halfWidthOfMean(*row);
        if (loose.halfWidthPercent && *loose.halfWidthPercent <= wanted)
            continue;
        const int runs = row ? row->statistics.n : 0;
        if (!loose.halfWidthPercent) {
            loose.why = QStringLiteral("no interval after %1 repetitions").arg(runs);
        } else {
            loose.why = QStringLiteral(
                            "±%1 % after %2 repetitions, spread too large: its runs scatter by %3")
                            .arg(*loose.halfWidthPercent, 0, 'f', 1)
                            .arg(runs)
                            .arg(scatter(*row));
            if (againstBaseline) {
                if (const ComparisonRow* base = comparison.find(baseline->id, concurrency, metric))
                    loose.why +=
                        QStringLiteral(", %1's by %2").arg(baseline->displayName(), scatter(*base));
            }
            loose.why += QStringLiteral(" (sd)");
        }
        precision.loose.push_back(std::move(loose));
    }
    precision.tight = precision.loose.empty();
    return precision;
}

} // namespace loadscope::app
