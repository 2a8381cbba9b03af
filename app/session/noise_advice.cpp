#include "app/session/noise_advice.h"

#include "app/session/capacity_comparison.h"
#include "app/session/metric.h"
#include "app/session/session.h"
#include "app/session/statistics.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace loadscope::app {

namespace {

constexpr double kTargetHalfWidthPercent = 3; // what "tight" means in the advice
constexpr int kReasonableRepetitions = 30;    // beyond it, noise is the thing to fix

struct Spread {
    double cvPercent = 0;
    QString where; // "proxy at c=50"
    int repetitions = 0;
};

} // namespace

int repetitionsFor(double cvPercent, double halfWidthPercent) {
    if (!(halfWidthPercent > 0) || !(cvPercent > 0))
        return 2;
    const double n = std::pow(1.96 * cvPercent / halfWidthPercent, 2);
    return std::max(2, int(std::ceil(n)));
}

QString tighteningAdvice(const Session& session) {
    std::map<std::pair<QUuid, int>, std::vector<double>> samples;
    int measured = 0;
    int noisy = 0;
    int pinned = 0;
    double worstOther = 0;
    QString worstNoise;
    for (const PointResult& r : session.results) {
        if (r.source.kind != ResultSource::Kind::Measured)
            continue;
        ++measured;
        pinned += r.pinned ? 1 : 0;
        if (!r.noise.isEmpty()) {
            ++noisy;
            const double other = otherLoadPercent(r).value_or(0);
            if (worstNoise.isEmpty() || other > worstOther) {
                worstOther = other;
                worstNoise = r.noise;
            }
        }
        const Target* target = session.findTarget(r.targetId);
        // A capacity search's steps are at rates of its own: its answers spread.
        if (!target || r.capacityStep > 0)
            continue;
        if (const auto value = metricValue(r, primaryMetric(target->protocol)))
            samples[{r.targetId, r.concurrency}].push_back(*value);
    }
    const CapacityComparison capacity(session);
    for (const CapacityRow& row : capacity.rows())
        samples[{row.targetId, row.figures.concurrency}] = row.figures.samples;
    if (measured == 0)
        return {};

    Spread worst;
    int fewest = 0;
    for (const auto& [key, values] : samples) {
        const int n = int(values.size());
        fewest = fewest == 0 ? n : std::min(fewest, n);
        if (n < 2)
            continue;
        const SampleStatistics spread = sampleStatistics(values);
        const double cv = spread.mean > 0 ? 100.0 * *spread.sd / spread.mean : 0;
        if (cv > worst.cvPercent) {
            const Target* target = session.findTarget(key.first);
            worst = {cv, QStringLiteral("%1 at c=%2").arg(target->displayName()).arg(key.second),
                     n};
        }
    }

    QStringList advice;
    if (fewest < 2) {
        advice << QStringLiteral("more repetitions: with one per point there is no spread to "
                                 "judge a difference by (3 or more)");
    } else if (worst.cvPercent > 0) {
        const int needed = repetitionsFor(worst.cvPercent, kTargetHalfWidthPercent);
        if (needed > kReasonableRepetitions)
            advice << QStringLiteral("a steadier machine before more repetitions: the spread is "
                                     "up to %1 % (coefficient of variation, %2), which would take "
                                     "about %3 repetitions to pin down to ±%4 %")
                          .arg(worst.cvPercent, 0, 'f', 1)
                          .arg(worst.where)
                          .arg(needed)
                          .arg(kTargetHalfWidthPercent);
        else if (needed > worst.repetitions)
            advice << QStringLiteral("more repetitions: the spread is up to %1 % (coefficient of "
                                     "variation, %2); about %3 repetitions give ±%4 %")
                          .arg(worst.cvPercent, 0, 'f', 1)
                          .arg(worst.where)
                          .arg(needed)
                          .arg(kTargetHalfWidthPercent);
    }
    if (pinned < measured && (worst.cvPercent > 2 || fewest < 2))
        advice << QStringLiteral("pinning: put the client's threads (plan CPUs, --cpus) and the "
                                 "server on separate CPUs");
    if (noisy > 0)
        advice << QStringLiteral("a quieter machine: %1 of %2 points were noisy (worst: %3)")
                      .arg(noisy)
                      .arg(measured)
                      .arg(worstNoise);
    if (advice.isEmpty())
        return QStringLiteral("\nThe comparison is as tight as measured: spread within ±%1 %, "
                              "no noisy point.\n")
            .arg(kTargetHalfWidthPercent);
    QString out = QStringLiteral("\nTo make the comparison tighter:\n");
    for (const QString& line : advice)
        out += QStringLiteral("  - ") + line + QLatin1Char('\n');
    return out;
}

} // namespace loadscope::app
