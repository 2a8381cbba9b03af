#include "app/session/comparison.h"

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

Comparison::Comparison(const Session& session) {
    const Target* baseline = session.baseline();
    if (baseline)
        m_baseline = baseline->id;

    std::map<std::pair<QUuid, int>, std::vector<const PointResult*>> groups;
    std::set<int> levels;
    for (const PointResult& result : session.results) {
        if (result.cancelled || !session.findTarget(result.targetId))
            continue;
        groups[{result.targetId, result.concurrency}].push_back(&result);
        levels.insert(result.concurrency);
    }

    std::set<QUuid> targetsWithRows;
    for (int level : levels) {
        for (const Target& target : session.targets) {
            auto group = groups.find({target.id, level});
            if (group == groups.end())
                continue;
            std::vector<const PointResult*>& results = group->second;
            std::stable_sort(results.begin(), results.end(),
                             [](const PointResult* a, const PointResult* b) {
                                 return a->repetition < b->repetition;
                             });
            for (Metric metric : metricsFor(target.protocol)) {
                ComparisonRow row;
                row.targetId = target.id;
                row.concurrency = level;
                row.metric = metric;
                for (const PointResult* result : results) {
                    if (const auto value = metricValue(*result, metric)) {
                        row.samples.push_back(*value);
                        row.imported |= result->source.kind == ResultSource::Kind::Imported;
                    }
                }
                if (row.samples.empty())
                    continue;
                row.statistics = sampleStatistics(row.samples);
                m_index[{target.id, level, metric}] = m_rows.size();
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
        const ComparisonRow* base = find(m_baseline, row.concurrency, row.metric);
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

const ComparisonRow* Comparison::find(const QUuid& targetId, int concurrency, Metric metric) const {
    const auto found = m_index.find({targetId, concurrency, metric});
    return found == m_index.end() ? nullptr : &m_rows[found->second];
}

std::vector<const ComparisonRow*> Comparison::rowsFor(const QUuid& targetId,
                                                      int concurrency) const {
    std::vector<const ComparisonRow*> rows;
    for (const MetricInfo& info : metricRegistry()) {
        if (const ComparisonRow* row = find(targetId, concurrency, info.metric))
            rows.push_back(row);
    }
    return rows;
}

} // namespace loadscope::app
