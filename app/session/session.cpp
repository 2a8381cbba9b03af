#include "app/session/session.h"

#include "app/session/capacity_search.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace loadscope::app {

const Host* Session::findHost(const QString& hostName) const {
    for (const Host& host : hosts) {
        if (host.name == hostName)
            return &host;
    }
    return nullptr;
}

const Target* Session::findTarget(const QUuid& id) const {
    const auto found = std::find_if(targets.begin(), targets.end(),
                                    [&id](const Target& target) { return target.id == id; });
    return found == targets.end() ? nullptr : &*found;
}

Target* Session::findTarget(const QUuid& id) {
    return const_cast<Target*>(std::as_const(*this).findTarget(id));
}

int Session::targetIndex(const QUuid& id) const {
    const Target* target = findTarget(id);
    return target ? static_cast<int>(target - targets.data()) : -1;
}

const Target* Session::baseline() const {
    if (const Target* target = findTarget(baselineTargetId))
        return target;
    return targets.empty() ? nullptr : &targets.front();
}

const PointResult* Session::findResult(const QUuid& targetId, int concurrency, int repetition,
                                       double rate, int capacityStep) const {
    const auto found = std::find_if(results.begin(), results.end(), [&](const PointResult& r) {
        return r.targetId == targetId && r.concurrency == concurrency &&
               r.repetition == repetition && r.levelRate() == rate &&
               r.capacityStep == capacityStep;
    });
    return found == results.end() ? nullptr : &*found;
}

void Session::putResult(PointResult result) {
    if (const PointResult* existing =
            findResult(result.targetId, result.concurrency, result.repetition, result.levelRate(),
                       result.capacityStep)) {
        results[static_cast<size_t>(existing - results.data())] = std::move(result);
        return;
    }
    results.push_back(std::move(result));
}

bool Session::removeTarget(const QUuid& id) {
    const int index = targetIndex(id);
    if (index < 0)
        return false;
    targets.erase(targets.begin() + index);
    std::erase_if(results, [&id](const PointResult& r) { return r.targetId == id; });
    if (baselineTargetId == id)
        baselineTargetId = targets.empty() ? QUuid() : targets.front().id;
    return true;
}

int Session::nextRepetition(const QUuid& targetId, int concurrency, double rate) const {
    std::set<int> used;
    for (const PointResult& r : results) {
        if (r.targetId == targetId && r.concurrency == concurrency && r.levelRate() == rate)
            used.insert(r.repetition);
    }
    int next = 0;
    while (used.count(next))
        ++next;
    return next;
}

std::vector<SweepPoint> sweepPoints(const Session& session) {
    return sweepPoints(session.plan, session.targets);
}

bool isPointDone(const Session& session, const SweepPoint& point) {
    if (session.plan.levelKind == SweepLevelKind::Capacity && point.capacityStep == 0)
        return DonePoints(session).contains(point);
    const PointResult* result = session.findResult(
        point.targetId, point.concurrency, point.repetition, point.rate, point.capacityStep);
    return result && !result->cancelled;
}

DonePoints::DonePoints(const Session& session) {
    for (const PointResult& result : session.results) {
        if (!result.cancelled)
            m_done.insert({result.targetId, result.concurrency, result.levelRate(),
                           result.repetition, result.capacityStep});
    }
    if (session.plan.levelKind != SweepLevelKind::Capacity)
        return;
    // A search is done when it has finished, not when some result shares its
    // key (a closed-loop point of an earlier plan at the same connections).
    std::erase_if(m_done, [](const Key& key) { return key.rate == 0 && key.capacityStep == 0; });
    for (const CapacitySearch& search : capacitySearches(session)) {
        if (search.finished())
            m_done.insert(
                {search.targetId, session.plan.rateConnections, 0.0, search.repetition, 0});
    }
}

std::vector<SweepPoint> missingPoints(const Session& session) {
    const DonePoints done(session);
    std::vector<SweepPoint> missing;
    for (const SweepPoint& point : sweepPoints(session)) {
        if (!done.contains(point))
            missing.push_back(point);
    }
    return missing;
}

} // namespace loadscope::app
