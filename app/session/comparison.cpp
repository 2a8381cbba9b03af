#include "app/session/comparison.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

namespace loadscope::app {

QString verdictId(Verdict verdict) {
    switch (verdict) {
    case Verdict::Baseline:
        return QStringLiteral("baseline");
    case Verdict::NotApplicable:
        break;
    case Verdict::WithinNoise:
        return QStringLiteral("within-noise");
    case Verdict::Significant:
        return QStringLiteral("significant");
    }
    return QStringLiteral("n/a");
}

namespace {

// A series within its target: the target's own Loadscope closed-loop results
// first, then the other tools and load models by name.
using SeriesKey = std::tuple<int, QString, QString>; // rank, tool, load model

SeriesKey seriesKey(const PointResult& result) {
    const QString& tool = result.source.tool;
    const bool own = tool == u"loadscope" && result.loadModel == LoadModel::ClosedLoop;
    return {own ? 0 : 1, tool, result.loadModelText()};
}

QString joined(const std::set<QString>& parts) {
    QStringList list(parts.begin(), parts.end());
    return list.join(QLatin1Char('+'));
}

} // namespace

Comparison::Comparison(const Session& session, ComparisonOptions options) {
    const Target* baseline = session.baseline();
    if (baseline)
        m_baseline = baseline->id;

    std::map<QUuid, std::map<SeriesKey, std::vector<const PointResult*>>> byTarget;
    for (const PointResult& result : session.results) {
        // A capacity search's steps are compared as searches (capacity_comparison.h).
        if (result.cancelled || result.capacityStep > 0 || !session.findTarget(result.targetId))
            continue;
        const SeriesKey key = options.poolSources ? SeriesKey{} : seriesKey(result);
        byTarget[result.targetId][key].push_back(&result);
    }

    std::map<std::pair<size_t, int>, std::vector<const PointResult*>> groups;
    std::set<int> levels;
    for (const Target& target : session.targets) {
        const auto found = byTarget.find(target.id);
        if (found == byTarget.end())
            continue;
        for (const auto& [key, results] : found->second) {
            ComparisonSeries series;
            series.targetId = target.id;
            series.pooled = options.poolSources;
            std::set<QString> tools;
            std::set<QString> models;
            std::set<double> rates;
            for (const PointResult* result : results) {
                tools.insert(result->source.tool);
                models.insert(result->loadModelText());
                rates.insert(result->levelRate());
                groups[{m_series.size(), result->concurrency}].push_back(result);
                levels.insert(result->concurrency);
            }
            series.tool = joined(tools);
            series.loadModel = joined(models);
            if (rates.size() == 1 && *rates.begin() > 0)
                series.offeredRate = *rates.begin();
            if (found->second.size() > 1)
                series.label = series.tool + QStringLiteral(", ") + series.loadModel;
            m_series.push_back(std::move(series));
        }
    }

    std::set<QUuid> targetsWithRows;
    for (int level : levels) {
        for (size_t s = 0; s < m_series.size(); ++s) {
            auto group = groups.find({s, level});
            if (group == groups.end())
                continue;
            const Target& target = *session.findTarget(m_series[s].targetId);
            std::vector<const PointResult*>& results = group->second;
            std::stable_sort(results.begin(), results.end(),
                             [](const PointResult* a, const PointResult* b) {
                                 return a->repetition < b->repetition;
                             });
            for (Metric metric : metricsFor(target.protocol)) {
                ComparisonRow row;
                row.series = s;
                row.targetId = target.id;
                row.concurrency = level;
                row.metric = metric;
                for (const PointResult* result : results) {
                    if (const auto value = metricValue(*result, metric)) {
                        row.samples.push_back(*value);
                        row.repetitions.push_back(result->repetition);
                        row.imported |= result->source.kind == ResultSource::Kind::Imported;
                        const auto compared = metric == Metric::Failed
                                                  ? metricValue(*result, Metric::FailedShare)
                                                  : value;
                        if (compared)
                            row.comparedSamples.push_back(*compared);
                        if (!result->noise.isEmpty() && row.noisy++ == 0)
                            row.noise = result->noise;
                        if (const QString net = netCounterMark(result->net);
                            !net.isEmpty() && row.netMarked++ == 0)
                            row.netNote = net;
                    }
                }
                if (row.samples.empty())
                    continue;
                row.statistics = sampleStatistics(row.samples);
                row.outliers = iqrOutliers(row.samples);
                row.outlierCount = int(std::count(row.outliers.begin(), row.outliers.end(), true));
                m_index[{s, level, metric}] = m_rows.size();
                m_seriesLevels.insert({s, level});
                m_rows.push_back(std::move(row));
                targetsWithRows.insert(target.id);
            }
        }
    }
    m_levels.assign(levels.begin(), levels.end());
    for (const Target& target : session.targets) {
        if (targetsWithRows.count(target.id))
            m_targets.push_back(target.id);
    }

    const bool pairable = session.plan.order == SweepOrder::Interleaved;
    for (ComparisonRow& row : m_rows) {
        if (row.targetId == m_baseline) {
            row.verdict = Verdict::Baseline;
            continue;
        }
        if (const ComparisonRow* base = baselineRowFor(row))
            judge(row, *base, pairable);
    }
}

namespace {

std::vector<double> sorted(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values;
}

} // namespace

void Comparison::judge(ComparisonRow& row, const ComparisonRow& base, bool pairable) {
    // Failures are judged as a rate: a longer run fails more often.
    const std::vector<double>& a = row.comparedSamples;
    const std::vector<double>& b = base.comparedSamples;
    if (a.empty() || b.empty())
        return;
    auto average = [](const std::vector<double>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    };
    const double baseMean = average(b);
    const double resolution =
        metricResolution(row.metric == Metric::Failed ? Metric::FailedShare : row.metric);
    const bool equal = sorted(a) == sorted(b);
    if (std::fabs(baseMean) < resolution) {
        // A percentage of a figure the measurement does not resolve is noise
        // of the rounding (0.0004 ms against 0.0002 ms is "+100%").
        row.verdictNote = QStringLiteral("below resolution");
        if (equal && a.size() >= 2 && b.size() >= 2)
            row.verdict = Verdict::WithinNoise;
        return;
    }
    const bool paired = pairable && !row.imported && !base.imported &&
                        row.repetitions == base.repetitions && a.size() >= 2;
    const ComparisonMethod method = paired ? ComparisonMethod::Paired : ComparisonMethod::Welch;
    std::optional<DifferenceInterval> change; // in percent of the baseline
    if (const auto ratio = logRatioInterval(a, b, method)) {
        change = DifferenceInterval{(ratio->ratio - 1) * 100,
                                    (ratio->low - 1) * 100,
                                    (ratio->high - 1) * 100,
                                    0,
                                    ratio->pValue,
                                    ratio->noSpread};
    } else if (auto difference = paired ? pairedDifference(a, b) : welchDifference(a, b)) {
        // A zero among the figures (no failures in one run): differences of
        // the figures, in percent of the baseline's mean. None is negative,
        // so the change does not go below -100%.
        const double scale = 100.0 / std::fabs(baseMean);
        change = *difference;
        change->estimate *= scale;
        change->low = std::max(-100.0, change->low * scale);
        change->high *= scale;
    }
    if (!change) {
        row.vsBaselinePercent = (average(a) - baseMean) / std::fabs(baseMean) * 100.0;
        row.verdictNote = QStringLiteral("needs 2 or more runs on both sides");
        return;
    }
    row.method = method;
    row.vsBaselinePercent = change->estimate;
    row.vsBaselineLowPercent = change->low;
    row.vsBaselineHighPercent = change->high;
    row.pValue = change->pValue;
    auto flat = [](const std::vector<double>& v) {
        return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
    };
    if (equal || (change->noSpread && change->estimate == 0)) {
        row.verdict = Verdict::WithinNoise;
    } else if (flat(a) && flat(b)) {
        // Identical runs on both sides (a count that never moves, a figure
        // rounded to its resolution): there is no noise to set it against.
        row.verdictNote = QStringLiteral("no spread on either side");
    } else if (change->noSpread) {
        // Paired, and every pair differs by the same ratio while each side
        // scatters: the drift cancelled exactly.
        row.verdict = Verdict::Significant;
    } else {
        row.verdict =
            change->low > 0 || change->high < 0 ? Verdict::Significant : Verdict::WithinNoise;
    }
}

const ComparisonRow* Comparison::baselineRowFor(const ComparisonRow& row) const {
    const ComparisonSeries& own = m_series[row.series];
    const ComparisonRow* sameModel = nullptr;
    for (size_t s : seriesOf(m_baseline)) {
        const ComparisonSeries& candidate = m_series[s];
        if (candidate.loadModel != own.loadModel)
            continue;
        const ComparisonRow* base = find(s, row.concurrency, row.metric);
        if (base && candidate.tool == own.tool)
            return base;
        if (!sameModel)
            sameModel = base;
    }
    return sameModel;
}

std::vector<size_t> Comparison::seriesOf(const QUuid& targetId) const {
    std::vector<size_t> indexes;
    for (size_t s = 0; s < m_series.size(); ++s) {
        if (m_series[s].targetId == targetId)
            indexes.push_back(s);
    }
    return indexes;
}

const ComparisonRow* Comparison::find(size_t series, int concurrency, Metric metric) const {
    const auto found = m_index.find({series, concurrency, metric});
    return found == m_index.end() ? nullptr : &m_rows[found->second];
}

std::optional<size_t> Comparison::firstSeriesAt(const QUuid& targetId, int concurrency) const {
    for (size_t s : seriesOf(targetId)) {
        if (m_seriesLevels.count({s, concurrency}))
            return s;
    }
    return std::nullopt;
}

const ComparisonRow* Comparison::find(const QUuid& targetId, int concurrency, Metric metric) const {
    const std::optional<size_t> series = firstSeriesAt(targetId, concurrency);
    return series ? find(*series, concurrency, metric) : nullptr;
}

std::vector<const ComparisonRow*> Comparison::rowsFor(size_t series, int concurrency) const {
    std::vector<const ComparisonRow*> rows;
    for (const MetricInfo& info : metricRegistry()) {
        if (const ComparisonRow* row = find(series, concurrency, info.metric))
            rows.push_back(row);
    }
    return rows;
}

std::vector<const ComparisonRow*> Comparison::rowsFor(const QUuid& targetId,
                                                      int concurrency) const {
    const std::optional<size_t> series = firstSeriesAt(targetId, concurrency);
    return series ? rowsFor(*series, concurrency) : std::vector<const ComparisonRow*>{};
}

} // namespace loadscope::app
