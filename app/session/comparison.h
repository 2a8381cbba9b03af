#pragma once

#include "app/session/metric.h"
#include "app/session/session.h"
#include "app/session/statistics.h"

#include <QString>
#include <QUuid>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace loadscope::app {

// How a target's figure stands against the baseline's at the same level.
enum class Verdict {
    Baseline,      // the row is the baseline itself
    NotApplicable, // fewer than two repetitions on either side, or no baseline figure
    WithinNoise,   // Welch's t-test: p >= 0.05
    Significant,   // Welch's t-test: p < 0.05
};
// "baseline", "n/a", "within-noise", "significant"
QString verdictId(Verdict verdict);

// One cell of the comparison: one target at one concurrency, one metric.
struct ComparisonRow {
    QUuid targetId;
    int concurrency = 0;
    Metric metric = Metric::RequestsPerSecond;
    std::vector<double> samples; // one per repetition, in repetition order
    SampleStatistics statistics; // over `samples`
    // (mean - baseline mean) / baseline mean x 100, when the baseline has the
    // figure at this level and it is not 0.
    std::optional<double> vsBaselinePercent;
    std::optional<double> pValue; // Welch's two-sided p against the baseline
    Verdict verdict = Verdict::NotApplicable;
    bool imported = false; // at least one sample came from an imported report
};

// Results turned into the table every chart and CSV reads:
// target x concurrency x metric, with mean, sample standard deviation and
// 95% confidence interval over the repetitions, the difference to the
// baseline target at the same concurrency, and a verdict on whether that
// difference exceeds run-to-run noise.
//
// The verdict is Welch's t-test at the 5% level (two-sided), chosen over
// "non-overlapping confidence intervals", which is far too strict with three
// repetitions. It needs two or more results on both sides: an imported
// single result still gets its row, its mean and its percent difference, but
// no interval and the verdict n/a.
//
// Derived, never stored: build one whenever the session's results change.
// Cancelled results are left out. A metric appears for a target when it
// applies to the target's protocol (metricApplies) and at least one result
// carries it.
class Comparison {
public:
    Comparison() = default;
    explicit Comparison(const Session& session);

    // Ordered by concurrency, then target (session order), then metric (registry order).
    const std::vector<ComparisonRow>& rows() const { return m_rows; }
    bool isEmpty() const { return m_rows.empty(); }
    // Levels that have at least one row, ascending.
    const std::vector<int>& concurrencyLevels() const { return m_levels; }
    // Targets that have at least one row, in session order.
    const std::vector<QUuid>& targetIds() const { return m_targets; }
    QUuid baselineTargetId() const { return m_baseline; }

    const ComparisonRow* find(const QUuid& targetId, int concurrency, Metric metric) const;
    // The rows of one target at one level, in metric order.
    std::vector<const ComparisonRow*> rowsFor(const QUuid& targetId, int concurrency) const;

private:
    std::vector<ComparisonRow> m_rows;
    std::vector<int> m_levels;
    std::vector<QUuid> m_targets;
    QUuid m_baseline;
    std::map<std::tuple<QUuid, int, Metric>, size_t> m_index;
};

} // namespace loadscope::app
