#include "app/session/comparison.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
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
        if (result.cancelled || !session.findTarget(result.targetId))
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
            for (const PointResult* result : results) {
                tools.insert(result->source.tool);
                models.insert(result->loadModelText());
                groups[{m_series.size(), result->concurrency}].push_back(result);
                levels.insert(result->concurrency);
            }
            series.tool = joined(tools);
            series.loadModel = joined(models);
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
                        row.imported |= result->source.kind == ResultSource::Kind::Imported;
                        if (!result->noise.isEmpty() && row.noisy++ == 0)
                            row.noise = result->noise;
                    }
                }
                if (row.samples.empty())
                    continue;
                row.statistics = sampleStatistics(row.samples);
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

    for (ComparisonRow& row : m_rows) {
        if (row.targetId == m_baseline) {
            row.verdict = Verdict::Baseline;
            continue;
        }
        const ComparisonRow* base = baselineRowFor(row);
        if (!base)
            continue;
        if (base->statistics.mean != 0)
            row.vsBaselinePercent = (row.statistics.mean - base->statistics.mean) /
                                    std::fabs(base->statistics.mean) * 100.0;
        if (const auto test = welchTest(row.samples, base->samples)) {
            row.pValue = test->pValue;
            row.verdict =
                test->pValue < kSignificanceLevel ? Verdict::Significant : Verdict::WithinNoise;
        }
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
