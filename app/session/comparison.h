#pragma once

#include "app/session/metric.h"
#include "app/session/session.h"
#include "app/session/statistics.h"

#include <QString>
#include <QUuid>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace loadscope::app {

// How a target's figure stands against the baseline's at the same level.
enum class Verdict {
    Baseline,      // the row is the baseline itself
    NotApplicable, // see ComparisonRow::verdictNote: too few runs, below resolution, no spread
    WithinNoise,   // the 95% interval of the change includes 0%
    Significant,   // the 95% interval of the change excludes 0%
};
// "baseline", "n/a", "within-noise", "significant"
QString verdictId(Verdict verdict);

// The results one row pools: one target's, of one load model and one tool.
// A closed-loop mean and a fixed-rate one, or ab's and Loadscope's, answer
// different questions (and differ by tool for the same server), so each is
// its own series unless the comparison is asked to pool them.
struct ComparisonSeries {
    QUuid targetId;
    QString tool;      // "loadscope", "ab" ...; pooled: every tool, "ab+loadscope"
    QString loadModel; // PointResult::loadModelText(); pooled: every one, joined by "+"
    // The rate level when every result of the series is fixed-rate at one
    // offered rate (a point of a rate sweep).
    std::optional<double> offeredRate;
    bool pooled = false;
    // What tells the series apart from the target's others ("ab, closed-loop");
    // empty when the target has one series.
    QString label;
};

struct ComparisonOptions {
    // Pool every tool's and load model's results of a target at a level into
    // one mean, as repetitions (loadscope-cli --pool-sources, the Compare
    // page's "Pool tools and load models").
    bool poolSources = false;
};

// One cell of the comparison: one series (a target's results of one load
// model and tool) at one concurrency, one metric.
struct ComparisonRow {
    size_t series = 0; // index into Comparison::series()
    QUuid targetId;
    int concurrency = 0;
    Metric metric = Metric::RequestsPerSecond;
    std::vector<double> samples;  // one per repetition, in repetition order
    std::vector<int> repetitions; // the repetition of each sample
    SampleStatistics statistics;  // over `samples`
    // Per sample: outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] of this row (benchstat's
    // rule). Flagged, never dropped: the statistics include them.
    std::vector<bool> outliers;
    int outlierCount = 0;
    // The change against the baseline in percent with its 95% interval: from
    // the geometric mean ratio (paired, per repetition) or the ratio of the
    // geometric means (Welch), on the log scale, so it never reaches -100%.
    // Failures are compared as the failed share, not the count. Absent when
    // the baseline's figure is below the metric's resolution.
    std::optional<double> vsBaselinePercent;
    std::optional<double> vsBaselineLowPercent;
    std::optional<double> vsBaselineHighPercent;
    std::optional<double> pValue; // two-sided, of the method below
    std::optional<ComparisonMethod> method;
    Verdict verdict = Verdict::NotApplicable;
    QString verdictNote;   // why n/a: "needs 2 or more runs on both sides", "below resolution" ...
    bool imported = false; // at least one sample came from an imported report
    // What is set against the baseline: the samples, but the failed share
    // (per cent of the requests that ended) for the Failed count.
    std::vector<double> comparedSamples;
    int noisy = 0; // samples from points marked noisy (cpu_usage.h)
    QString noise; // the first noisy one's reason
    // Samples from points whose network stack lost or refused packets (net_counters.h), and
    // the first one's notes.
    int netMarked = 0;
    QString netNote;
};

// Results turned into the table every chart and CSV reads:
// target x concurrency x metric, with mean, sample standard deviation and
// 95% confidence interval over the repetitions, the difference to the
// baseline target at the same concurrency, and a verdict on whether that
// difference exceeds run-to-run noise.
//
// The change is paired when the plan interleaves its repetitions and both
// rows hold the same measured repetitions (repetition i of each ran next to
// each other): the per-pair ratios' geometric mean with a t interval of the
// log ratios, which takes the machine's drift out. Otherwise (imports,
// sequential order, unequal counts) Welch's interval of the log figures.
// "Significant" when the 95% interval excludes 0% change; equal samples and
// zero spread are never significant. It needs two or more results on both
// sides: an imported single result still gets its row, its mean and its
// percent difference, but no interval and the verdict n/a.
//
// A target's results of different load models or tools are separate series
// (see ComparisonSeries), the target's own sweeps first. A series is compared
// with the baseline target's series of the same tool and load model, else
// with its first series of the same load model; never across load models.
//
// Derived, never stored: build one whenever the session's results change.
// Cancelled results are left out. A metric appears for a target when it
// applies to the target's protocol (metricApplies) and at least one result
// carries it.
class Comparison {
public:
    Comparison() = default;
    explicit Comparison(const Session& session, ComparisonOptions options = {});

    // Ordered by concurrency, then series (target in session order, then the
    // target's series), then metric (registry order).
    const std::vector<ComparisonRow>& rows() const { return m_rows; }
    bool isEmpty() const { return m_rows.empty(); }
    // Levels that have at least one row, ascending.
    const std::vector<int>& concurrencyLevels() const { return m_levels; }
    // Targets that have at least one row, in session order.
    const std::vector<QUuid>& targetIds() const { return m_targets; }
    QUuid baselineTargetId() const { return m_baseline; }

    // Every series with at least one result: by target (session order), the
    // target's own Loadscope closed-loop series first.
    const std::vector<ComparisonSeries>& series() const { return m_series; }
    // The indexes into series() of one target's series.
    std::vector<size_t> seriesOf(const QUuid& targetId) const;

    const ComparisonRow* find(size_t series, int concurrency, Metric metric) const;
    // In the target's first series with rows at the level (its only series
    // unless tools or load models differ): what a chart of one bar per target shows.
    const ComparisonRow* find(const QUuid& targetId, int concurrency, Metric metric) const;
    // The rows of one series at one level, in metric order.
    std::vector<const ComparisonRow*> rowsFor(size_t series, int concurrency) const;
    // The rows of the target's first series with rows at the level.
    std::vector<const ComparisonRow*> rowsFor(const QUuid& targetId, int concurrency) const;

    // Sets the row's change against `base` (the baseline's row) and its
    // verdict from their comparedSamples, as the comparison does for each of
    // its rows; paired when `pairable` and both hold the same measured
    // repetitions. Capacity rows (capacity_comparison.h) are judged by it too.
    static void judge(ComparisonRow& row, const ComparisonRow& base, bool pairable);

private:
    const ComparisonRow* baselineRowFor(const ComparisonRow& row) const;
    // The target's first series with rows at the level.
    std::optional<size_t> firstSeriesAt(const QUuid& targetId, int concurrency) const;

    std::vector<ComparisonRow> m_rows;
    std::vector<int> m_levels;
    std::vector<QUuid> m_targets;
    std::vector<ComparisonSeries> m_series;
    QUuid m_baseline;
    std::map<std::tuple<size_t, int, Metric>, size_t> m_index;
    std::set<std::pair<size_t, int>> m_seriesLevels; // (series, level) with rows
};

} // namespace loadscope::app
