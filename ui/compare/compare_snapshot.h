#pragma once

#include "app/common/background_job.h"
#include "app/session/capacity_comparison.h"
#include "app/session/comparison.h"
#include "app/session/rate_curve.h"
#include "app/session/session.h"
#include "app/stats/latency_distribution.h"

#include <QVariant>
#include <map>
#include <memory>

// What the Compare page shows of one state of the session, built on a worker
// thread so that the GUI thread only applies it: the comparison table and the
// latency distributions of the level on show. Immutable once built; the
// page, its table model and its charts share it.
namespace loadscope::ui {

// The latency distributions of every target at one level.
struct LevelDistributions {
    int concurrency = 0;
    std::map<QUuid, app::LatencyDistribution> byTarget;
};

struct CompareSnapshot {
    std::shared_ptr<const app::Session> session; // the copy it was built from
    app::Comparison comparison;
    // At the level the page will show first (shownLevel()); other levels are
    // built when the user picks them.
    std::shared_ptr<const LevelDistributions> distributions;
    std::vector<app::RateCurve> rateCurves; // of the session's fixed-rate results
    bool closedLoop = false;                // whether any result not cancelled ran a closed loop
    // A capacity plan's searches; empty for any other plan.
    std::shared_ptr<const app::CapacityComparison> capacity =
        std::make_shared<const app::CapacityComparison>();
};

// What the page's controls will show for a comparison: the user's pick when
// the comparison offers it, else the default (the baseline's protocol, the
// highest level). Invalid when nothing is offered.
QVariant shownProtocol(const app::Session& session, const app::Comparison& comparison,
                       const QVariant& pickedProtocol);
QVariant shownLevel(const app::Session& session, const app::Comparison& comparison,
                    const QVariant& protocol, const QVariant& pickedLevel);

// Builds the snapshot of `session` with the distributions at the level the
// page will show given the user's picks. nullptr when `check` says the
// result is no longer wanted (asked between the expensive steps).
std::shared_ptr<const CompareSnapshot>
buildCompareSnapshot(std::shared_ptr<const app::Session> session, const QVariant& pickedProtocol,
                     const QVariant& pickedLevel, const app::JobCheck* check = nullptr,
                     app::ComparisonOptions options = {});

std::shared_ptr<const LevelDistributions> buildLevelDistributions(const app::Session& session,
                                                                  int concurrency);

// The comparison of a snapshot, sharing its lifetime.
inline std::shared_ptr<const app::Comparison>
comparisonOf(const std::shared_ptr<const CompareSnapshot>& snapshot) {
    return {snapshot, &snapshot->comparison};
}

} // namespace loadscope::ui
