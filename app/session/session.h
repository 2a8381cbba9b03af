#pragma once

#include "app/session/host.h"
#include "app/session/point_result.h"
#include "app/session/sweep_plan.h"
#include "app/session/target.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QUuid>
#include <cstddef>
#include <functional>
#include <optional>
#include <unordered_set>
#include <vector>

namespace loadscope::app {

// A workbench session: what is compared (targets, one per deployment mode),
// how (the sweep plan), and everything measured or imported so far. Plain
// value; SessionDocument wraps it for the window, session_file.h persists it.
//
// A result of a session file that broke a rule when it was read (a figure
// out of range, a field of the wrong type, a target that is not there):
// kept exactly as written, so that saving the session loses nothing, and
// named in one line for the user. No view or comparison sees it.
struct SetAsideResult {
    qsizetype index = 0; // its position in the file's "results"
    QJsonValue json;     // as read, written back unchanged
    QString problem;     // "results[12] set aside: durationSeconds is -0.002, expected above 0"

    friend bool operator==(const SetAsideResult&, const SetAsideResult&) = default;
};

// The wire MTUs a lab accepts: from IPv4's minimum reassembly size, 576, to
// veth's maximum, 65535.
inline constexpr int kMinLabMtu = 576;
inline constexpr int kMaxLabMtu = 65535;

// The deployment lab a session's lab targets run in: what `loadscope-cli lab
// sandbox` is asked to build before the first point.
struct LabSetup {
    int mtu = 1500;             // of the wire between the client and the server host
    QString clientCpus;         // CPU list of the load ("0-1"); empty: the lab's default
    QString serverCpus;         // CPU list of the server; empty: the lab's default
    std::vector<QString> modes; // the lab modes used (those of the lab targets)
    // The session's host (Session::hosts) the lab is built on, over SSH; empty: this machine.
    QString host = {};
    LabClientPlacement client = LabClientPlacement::Wire;

    friend bool operator==(const LabSetup&, const LabSetup&) = default;
};

// Results are keyed by (target, concurrency, rate level, repetition, capacity
// step), the rate level being PointResult::levelRate() (0 closed loop): at
// most one result per key (putResult() replaces). A capacity search's step
// never replaces a rate sweep's result at the same rate, nor one another. Statistics are never
// stored here; they are derived by Comparison.
struct Session {
    QString name;
    QString notes;
    std::vector<Target> targets; // in display order
    // The user's machines reached over SSH, by name (host.h); targets, their
    // load and the lab name them.
    std::vector<Host> hosts;
    QUuid baselineTargetId; // null or unknown: the first target is the baseline
    SweepPlan plan;
    std::optional<LabSetup> lab;          // set when the session has lab targets
    std::vector<PointResult> results;     // in the order they were measured or imported
    std::vector<SetAsideResult> setAside; // in file order
    // Keys of the file a newer Loadscope wrote that this one does not know,
    // kept as read and saved again (session_json.h).
    QJsonObject unknownFields;

    const Host* findHost(const QString& hostName) const;
    const Target* findTarget(const QUuid& id) const;
    Target* findTarget(const QUuid& id);
    int targetIndex(const QUuid& id) const; // -1 when absent
    // The target differences are measured against, or nullptr without targets.
    const Target* baseline() const;

    const PointResult* findResult(const QUuid& targetId, int concurrency, int repetition,
                                  double rate = 0, int capacityStep = 0) const;
    // Appends `result`, or replaces the one with the same key in place (a
    // repeated point after a cancelled or failed attempt).
    void putResult(PointResult result);
    // Removes the target and its results; the baseline falls back to the first target.
    bool removeTarget(const QUuid& id);
    // The lowest repetition number not yet used by a result of this target
    // and level; importers number their results with it.
    int nextRepetition(const QUuid& targetId, int concurrency, double rate = 0) const;

    friend bool operator==(const Session&, const Session&) = default;
};

// Every point of the session's plan over its targets, in execution order.
std::vector<SweepPoint> sweepPoints(const Session& session);
// A point is done when a result for its key exists and was not cancelled,
// whatever its source (an imported result fills its point too). A capacity
// plan's point, a search, is done when its steps say it has finished
// (capacity_search.h): a search cut short goes on from its last step.
bool isPointDone(const Session& session, const SweepPoint& point);
// The points that are done, looked up once each: for views and estimates that
// ask of every point (a search of the results per point is quadratic).
class DonePoints {
public:
    explicit DonePoints(const Session& session);
    bool contains(const SweepPoint& point) const {
        return m_done.contains(
            {point.targetId, point.concurrency, point.rate, point.repetition, point.capacityStep});
    }

private:
    struct Key {
        QUuid target;
        int concurrency;
        double rate;
        int repetition;
        int capacityStep;
        bool operator==(const Key&) const = default;
    };
    // Hashed: a sorted set compared QUuids (slow: variant() first) ~14 times per point.
    struct KeyHash {
        size_t operator()(const Key& key) const noexcept {
            return qHash(key.target) ^ (size_t(key.concurrency) * 0x9E3779B97F4A7C15ull) ^
                   (size_t(key.repetition) << 1) ^ (std::hash<double>{}(key.rate) << 3) ^
                   (size_t(key.capacityStep) << 17);
        }
    };
    std::unordered_set<Key, KeyHash> m_done;
};
// The points still to run, in execution order: what a resumed sweep runs.
std::vector<SweepPoint> missingPoints(const Session& session);

} // namespace loadscope::app
