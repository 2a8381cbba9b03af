#include "ui/compare/compare_snapshot.h"

#include "ui/compare/compare_chart_data.h"

#include <algorithm>

namespace loadscope::ui {

QVariant shownProtocol(const app::Session& session, const app::Comparison& comparison,
                       const QVariant& pickedProtocol) {
    const std::vector<app::TargetProtocol> offered = comparedProtocols(session, comparison);
    if (offered.empty())
        return {};
    const auto isOffered = [&offered](const QVariant& value) {
        return value.isValid() && std::find(offered.begin(), offered.end(),
                                            app::TargetProtocol(value.toInt())) != offered.end();
    };
    if (isOffered(pickedProtocol))
        return pickedProtocol;
    const app::Target* baseline = session.baseline();
    const QVariant preferred = int(baseline ? baseline->protocol : app::TargetProtocol::Http);
    return isOffered(preferred) ? preferred : QVariant(int(offered.front()));
}

QVariant shownLevel(const app::Session& session, const app::Comparison& comparison,
                    const QVariant& protocol, const QVariant& pickedLevel) {
    if (!protocol.isValid())
        return {};
    const std::vector<int> levels = comparedLevels(
        comparison, comparedTargets(session, comparison, app::TargetProtocol(protocol.toInt())));
    if (levels.empty())
        return {};
    if (pickedLevel.isValid() &&
        std::find(levels.begin(), levels.end(), pickedLevel.toInt()) != levels.end())
        return pickedLevel;
    // The highest level is where deployment modes differ most.
    return levels.back();
}

std::shared_ptr<const LevelDistributions> buildLevelDistributions(const app::Session& session,
                                                                  int concurrency) {
    auto distributions = std::make_shared<LevelDistributions>();
    distributions->concurrency = concurrency;
    distributions->byTarget = app::latencyDistributionsAt(session, concurrency);
    return distributions;
}

std::shared_ptr<const CompareSnapshot>
buildCompareSnapshot(std::shared_ptr<const app::Session> session, const QVariant& pickedProtocol,
                     const QVariant& pickedLevel, const app::JobCheck* check,
                     app::ComparisonOptions options) {
    auto snapshot = std::make_shared<CompareSnapshot>();
    snapshot->session = std::move(session);
    snapshot->comparison = app::Comparison(*snapshot->session, options);
    snapshot->rateCurves = app::rateCurves(*snapshot->session);
    const std::vector<app::PointResult>& results = snapshot->session->results;
    snapshot->closedLoop = std::any_of(results.begin(), results.end(), [](const auto& result) {
        return !result.cancelled && result.levelRate() <= 0;
    });
    if (check && check->cancelled())
        return nullptr;
    const QVariant protocol =
        shownProtocol(*snapshot->session, snapshot->comparison, pickedProtocol);
    const QVariant level =
        shownLevel(*snapshot->session, snapshot->comparison, protocol, pickedLevel);
    snapshot->distributions = level.isValid()
                                  ? buildLevelDistributions(*snapshot->session, level.toInt())
                                  : std::make_shared<const LevelDistributions>();
    return snapshot;
}

} // namespace loadscope::ui
