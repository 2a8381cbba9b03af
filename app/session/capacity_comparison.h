#pragma once

#include "app/session/capacity_search.h"
#include "app/session/comparison.h"
#include "app/session/session.h"

#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

// What a capacity plan's searches add up to per target: the capacity's mean
// and 95 % interval over its repetitions, and its change against the
// baseline's capacity (paired by repetition when the searches were
// interleaved), judged as the comparison judges every figure
// (Comparison::judge). Derived, never stored; built beside the Comparison by
// the report, the summary CSV and the Compare page.
namespace loadscope::app {

struct CapacityRow {
    QUuid targetId;
    // The target's searches, repetitions ascending (pointers into
    // CapacityComparison::searches()).
    std::vector<const CapacitySearch*> searches;
    // The capacities of the searches that finished with an answer and were
    // not limited by the client, by repetition: samples, statistics, change
    // and verdict. metric is RequestsPerSecond (a capacity is a rate).
    ComparisonRow figures;
    int finished = 0;
    int clientLimited = 0; // finished with the client as the limit: no capacity
    int noRateMeets = 0;   // finished without any rate meeting the objective
    // The highest met rate of each client-limited search: the capacity is at
    // least this much.
    std::vector<double> lowerBounds;
};

class CapacityComparison {
public:
    CapacityComparison() = default;
    explicit CapacityComparison(const Session& session);

    // No capacity plan, or no search has a step yet.
    bool isEmpty() const { return m_rows.empty(); }
    const CapacityObjective& objective() const { return m_objective; }
    int connections() const { return m_connections; }
    double precisionPercent() const { return m_precisionPercent; }
    QUuid baselineTargetId() const { return m_baseline; }
    // One per target with at least one step, targets in session order.
    const std::vector<CapacityRow>& rows() const { return m_rows; }
    const CapacityRow* find(const QUuid& targetId) const;
    const std::vector<CapacitySearch>& searches() const { return m_searches; }

private:
    CapacityObjective m_objective;
    int m_connections = 0;
    double m_precisionPercent = 0;
    QUuid m_baseline;
    std::vector<CapacitySearch> m_searches;
    std::vector<CapacityRow> m_rows;
};

// "capacity at p99 ≤ 5 ms": how reports name the figure.
QString capacityLabel(const CapacityObjective& objective);

// The capacity section of `loadscope-cli report` and `sweep`: a table of
// each target's capacity (mean ± half its 95 % interval) and its change
// against the baseline, a verdict line per target, then each search's
// answer in one line. Empty when there is nothing to say.
QString capacityReport(const Session& session, const CapacityComparison& comparison);

// "nat: -21.2% [-25.0%, -17.0%] capacity at p99 ≤ 5 ms vs host (significant, paired)",
// or empty for the baseline.
QString capacityVerdictLine(const Session& session, const CapacityComparison& comparison,
                            const CapacityRow& row);

} // namespace loadscope::app
