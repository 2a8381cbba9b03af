#include "ui/compare/compare_snapshot.h"

#include "ui/compare/compare_chart_data.h"

#include <algorithm>
#include <future>

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

namespace {

// The level the snapshot will most likely show, guessed before the comparison
// exists: the user's pick, else the highest closed-loop level of the protocol
// the page prefers. A wrong guess costs only the work done beside the
// comparison; shownLevel() decides.
int likelyLevel(const app::Session& session, const QVariant& pickedProtocol,
                const QVariant& pickedLevel) {
    if (pickedLevel.isValid())
        return pickedLevel.toInt();
    const app::Target* baseline = session.baseline();
    const auto protocol = app::TargetProtocol(
        pickedProtocol.isValid() ? pickedProtocol.toInt()
                                 : int(baseline ? baseline->protocol : app::TargetProtocol::Http));
    int level = -1;
    for (const app::PointResult& result : session.results) {
        const app::Target* target = session.findTarget(result.targetId);
        if (!result.cancelled && result.levelRate() <= 0 && target && target->protocol == protocol)
            level = std::max(level, result.concurrency);
    }
    return level;
}

} // namespace

std::shared_ptr<const CompareSnapshot>
buildCompareSnapshot(std::shared_ptr<const app::Session> session, const QVariant& pickedProtocol,
                     const QVariant& pickedLevel, const app::JobCheck* check,
                     app::ComparisonOptions options) {
    auto snapshot = std::make_shared<CompareSnapshot>();
    snapshot->session = std::move(session);
    // The distributions merge every histogram of one level, the comparison
    // reads every result's figures: of ten thousand results each takes about
    // as long as the other, so they run side by side.
    const int guessed = likelyLevel(*snapshot->session, pickedProtocol, pickedLevel);
    std::future<std::shared_ptr<const LevelDistributions>> early;
    if (guessed > 0)
        early = std::async(std::launch::async, [session = snapshot->session, guessed] {
            return buildLevelDistributions(*session, guessed);
        });
    snapshot->comparison = app::Comparison(*snapshot->session, options);
    snapshot->rateCurves = app::rateCurves(*snapshot->session);
    snapshot->capacity = std::make_shared<const app::CapacityComparison>(*snapshot->session);
    const std::vector<app::PointResult>& results = snapshot->session->results;
    snapshot->closedLoop = std::any_of(results.begin(), results.end(), [](const auto& result) {
        return !result.cancelled && result.levelRate() <= 0;
    });
    std::shared_ptr<const LevelDistributions> guessedDistributions =
        early.valid() ? early.get() : nullptr;
    if (check && check->cancelled())
        return nullptr;
    const QVariant protocol =
        shownProtocol(*snapshot->session, snapshot->comparison, pickedProtocol);
    const QVariant level =
        shownLevel(*snapshot->session, snapshot->comparison, protocol, pickedLevel);
    if (!level.isValid())
        snapshot->distributions = std::make_shared<const LevelDistributions>();
    else if (guessedDistributions && level.toInt() == guessed)
        snapshot->distributions = std::move(guessedDistributions);
    else
        snapshot->distributions = buildLevelDistributions(*snapshot->session, level.toInt());
    return snapshot;
}

} // namespace loadscope::ui
