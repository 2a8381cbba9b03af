#pragma once

#include "app/remote/host_agents.h"
#include "app/remote/ssh_command.h"
#include "app/session/point_result.h"
#include "app/session/session_lock.h"
#include "app/session/sweep_plan.h"
#include "app/sweep/target_probe.h"
#include "engine/load_spec.h"
#include "engine/progress.h"
#include "engine/run_result.h"

#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUuid>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <variant>

class QTimer;

namespace loadscope::app {

class AgentClient;
class AgentWatch;
class HostAgents;
class PointRun;
class SessionDocument;

// How a sweep ended.
struct SweepOutcome {
    enum class Status { Completed, Cancelled, Failed };
    Status status = Status::Completed;
    int pointCount = 0;    // points of the plan
    int pointsSkipped = 0; // already done when the sweep began (resume)
    int pointsRun = 0;     // measured and stored by this sweep
    int pointsFailed = 0;
    QString error; // Failed: one line, naming the target when one is to blame
    // Failed because a target did not resolve, answer its probe or accept a
    // connection (rather than because of its settings or the plan).
    bool unreachable = false;
    // A plan with a precision: points added beyond the least repetitions, and
    // one line per target and level whose ratio it did not pin down by the
    // most repetitions ("nat at concurrency 10: ±7.4 % after 10 repetitions, ...").
    int roundPointsAdded = 0;
    QStringList notPinnedDown;
};

// Runs a session's sweep: the points still missing from the document's
// session, in the plan's order (resume = completed points are skipped), each
// as an engine::LoadRun on the engine's worker threads while this object's
// thread keeps running its event loop. Every finished point is stored in the
// document and, when the document has a file, saved at once (atomically), so
// a crash or kill loses at most the point in progress.
//
// Before the first point: every target with missing points is checked (its
// spec builds, its host resolves) and, unless disabled, probed with one
// request; the first failure ends the sweep with a message naming the target.
// Memcache targets asking for a preload get it, unmeasured, once per sweep
// before their first point.
//
// A capacity plan runs one search per target and repetition, interleaved as
// points are (capacity_search.h): each step is a point (pointStarted,
// pointFinished, the search's index and pointCount searches), stored as it
// ends; statusChanged says what the search does and, at its end, its answer.
//
// A plan with a precision runs level by level: the level's least repetitions,
// then rounds (every target once more, in session order) until
// levelPrecision() calls the level tight or the most repetitions are done;
// precisionFinished() says which, naming the targets not pinned down.
// Lab targets (Target::lab) run through one load agent: before the first
// point the runner starts `loadscope-cli lab sandbox ... -- loadscope-cli lab
// agent` (lab_sandbox_command.h) for all of them, takes each one's address
// from the lab's line, runs their points (and preloads) through the agent,
// and closes it after the last point, on cancel and on failure alike. The
// other targets run in-process, as before. Every connection made in-process
// passes the gate (checkConnection(), agent_safety.h): lab targets are not
// probed (their address means something only inside the lab; their first
// point tells) and never run here.
//
// Targets that load from the session's hosts (Target::loadFrom) run on
// those hosts' agents, over ssh, one agent per host for the whole sweep
// (HostAgents): before the first point every host is reached and its clock
// measured; each point is split over the hosts (splitLoad), started on all of
// them together and merged (MultiAgentPointRun). A target whose server is on
// a host (Target::serverHost) gets that host's CPU and its server's over each
// point from the agent there. Neither kind is probed from here.
//
// A point that reaches no server at all fails and ends the sweep (the server
// went away; the next points would fail the same). Failed requests within a
// point are results, not failures.
class SweepRunner : public QObject {
    Q_OBJECT

public:
    explicit SweepRunner(SessionDocument* document, QObject* parent = nullptr);
    // Cancels whatever is in progress; the engine's threads then end within
    // 100 ms by themselves and the sweep's coroutine unwinds without this object.
    ~SweepRunner() override;

    // Probe every target before the first point (default on).
    void setProbeEnabled(bool enabled) { m_probeEnabled = enabled; }
    // A lock the caller already holds on the document's file (loadscope-cli
    // takes it before it reads the file). Without one, run() takes its own on
    // the document's file for the sweep's duration and fails at once, saving
    // nothing, when another sweep holds it.
    void setSessionLock(std::shared_ptr<const SessionLock> lock) {
        m_sessionLock = std::move(lock);
    }

    // Before the first point, watch the idle machine this long and say how
    // busy it already is (statusChanged, idleCheckFinished); 0: no check (the default).
    void setIdleCheckSeconds(double seconds) { m_idleCheckSeconds = seconds; }
    // The loadscope-cli that starts the lab and its agent; default: findCli()'s.
    void setCliPath(const QString& path) { m_cliPath = path; }
    // The loadscope-cli a lab target's sweep would start: setCliPath()'s, else
    // findCli()'s, whose error names where it looked. The window asks before
    // Start, so that a missing one is said before anything runs.
    Result<QString> labCli() const;
    // Runs lab targets through this command instead of the lab's, as is:
    // an agent started directly (tests, a machine prepared by hand). The lab
    // targets then keep their own addresses.
    void setAgentCommand(const QStringList& command) { m_agentCommand = command; }
    // How long the agent (and the lab it builds) may take to say hello.
    void setAgentOpenTimeout(std::chrono::milliseconds timeout) { m_agentOpenTimeout = timeout; }
    // How the session's hosts are reached: the ssh config file (ssh -F) and
    // the bounds on a host that does not answer.
    void setSshOptions(const SshOptions& options) { m_ssh = options; }
    // The largest clock offset a host may have (HostAgents).
    void setMaxClockOffsetMs(double ms) { m_maxClockOffsetMs = ms; }

    bool isRunning() const { return m_running; }

    // Runs each point through `source` instead of the engine: a run whose
    // figures are known, for tests of what the runner does with results.
    using RunSource =
        std::function<engine::RunResult(const engine::LoadSpec& spec, const SweepPoint& point)>;
    void setRunSource(RunSource source) { m_runSource = std::move(source); }

    // Runs the sweep to its end and returns how it ended: the one report of
    // the sweep's end (runningChanged(false) comes just before it). A second
    // run() while one is going returns Failed at once and leaves the first alone.
    QCoro::Task<SweepOutcome> run();
    // Stops the point in progress (the engine stops within 100 ms) or the
    // pause or probe, keeps every completed point and stores nothing of the
    // cancelled one. The sweep ends well within a second.
    void cancel();

Q_SIGNALS:
    void runningChanged(bool running);
    // What the sweep is doing between points: "probing direct", "preloading
    // memcached ...", "pausing 2 s".
    void statusChanged(const QString& message);
    void probeFinished(const QUuid& targetId, const loadscope::app::ProbeResult& result);
    // point.index is the 0-based position among the plan's pointCount points.
    void pointStarted(const loadscope::app::SweepPoint& point, int pointCount);
    // The engine's snapshots of the point in progress, about ten per second.
    void progressAvailable(const loadscope::app::SweepPoint& point,
                           std::shared_ptr<const loadscope::engine::Progress> progress);
    void pointFinished(const loadscope::app::SweepPoint& point,
                       const loadscope::app::PointResult& result);
    void pointFailed(const loadscope::app::SweepPoint& point, const QString& error);
    // A plan with a precision, after a level's last round: reached, or the
    // most repetitions are done and `message` names the targets not pinned
    // down and why.
    void precisionFinished(int concurrency, bool reached, const QString& message);
    void autosaveFailed(const QString& error);
    // The idle check's result: the share of the machine already busy, steal
    // included, and the message statusChanged also carried.
    void idleCheckFinished(double busyPercent, const QString& message);

private:
    struct Sweep; // what one run() works through, kept in its coroutine frame
    using Ended = std::optional<SweepOutcome>; // how the sweep ended, or nullopt to go on

    QCoro::Task<SweepOutcome> runSweep(quint64 job);
    QCoro::Task<SweepOutcome> runSteps(Sweep& sweep);
    // The steps of runSteps(), each ending the sweep or letting it go on.
    QCoro::Task<Ended> openAgent(Sweep& sweep);
    // The agents of the hosts the targets load from or serve on (sweep_hosts.cpp).
    QCoro::Task<Ended> openHosts(Sweep& sweep);
    // A point loaded from the target's hosts, their parts merged; with the
    // server host's window when it has one.
    QCoro::Task<Ended> runHostPoint(Sweep& sweep, const SweepPoint& point);
    // The target's server host watched from `windowStartUs` (this machine's
    // clock), when it has one; null otherwise. The caller owns it.
    AgentWatch* startServerWatch(Sweep& sweep, const Target& target, int64_t windowStartUs);
    // The watch's window as the result's CPU (its host's; `clientSecondsHere`
    // of the load ran there) and the noise judged again; a warning says what
    // the server host could not find. Deletes the watch.
    QCoro::Task<> takeServerWindow(Sweep& sweep, AgentWatch* watch, const Target& target,
                                   PointResult& result, double clientSecondsHere);
    QCoro::Task<Ended> checkTargets(Sweep& sweep);
    QCoro::Task<Ended> probeTargets(Sweep& sweep);
    QCoro::Task<Ended> runPoints(Sweep& sweep, const std::vector<SweepPoint>& points);
    QCoro::Task<Ended> idleCheck(Sweep& sweep);
    QCoro::Task<Ended> runPoint(Sweep& sweep, const SweepPoint& point);
    // Rounds at one level until it is tight or at the most repetitions.
    QCoro::Task<Ended> tighten(Sweep& sweep, int concurrency);
    // A capacity plan (sweep_capacity.cpp): each missing search in turn, its
    // probe and then step after step (each a point, stored as it ends) until
    // the steps say it has finished.
    QCoro::Task<Ended> runSearches(Sweep& sweep);
    QCoro::Task<Ended> runSearch(Sweep& sweep, const SweepPoint& search);
    // The probe's closed-loop throughput, or how the sweep ended.
    QCoro::Task<std::variant<Ended, double>> probeCapacity(Sweep& sweep, const SweepPoint& search);
    QCoro::Task<Ended> preload(Sweep& sweep, const Target& target, engine::LoadSpec spec);
    // Puts the result into the document and saves it (SessionDocument::saveInBackground()).
    QCoro::Task<> storeResult(Sweep& sweep, SweepPoint point, PointResult result);
    // Asked after every await: the runner is gone (the outcome so far, without
    // touching it), the sweep was cancelled or superseded, or nullopt to go on.
    static Ended interrupted(const Sweep& sweep, bool runCancelled = false);

    // Runs one point to its end (in-process or through the agent, as
    // `run` is); progress is relayed for `point` when given. Takes `run`.
    QCoro::Task<Result<engine::RunResult>> runEngine(PointRun* run,
                                                     std::optional<SweepPoint> point);
    QCoro::Task<> pause(double seconds);
    void setRunning(bool running);
    bool isCurrent(quint64 job) const { return job == m_jobId; }

    QPointer<SessionDocument> m_document;
    bool m_probeEnabled = true;
    double m_idleCheckSeconds = 0;
    QString m_cliPath;
    QStringList m_agentCommand;
    std::chrono::milliseconds m_agentOpenTimeout{std::chrono::seconds(120)};
    SshOptions m_ssh;
    double m_maxClockOffsetMs = kDefaultMaxClockOffsetMs;
    std::shared_ptr<const SessionLock> m_sessionLock;
    RunSource m_runSource;
    bool m_running = false;
    quint64 m_jobId = 0;
    // What cancel() must stop; each is set only while it is awaited.
    QPointer<PointRun> m_run;
    QPointer<AgentClient> m_opening; // the agent while it opens
    QPointer<HostAgents> m_openingHosts;
    QPointer<TargetProbe> m_probe;
    QPointer<QTimer> m_pauseTimer;
};

} // namespace loadscope::app

// Qt 6 registers the other signal argument types (SweepPoint, PointResult,
// shared_ptr<const Progress>) by themselves; the constructor registers them
// by name too, for queued connections.
Q_DECLARE_METATYPE(loadscope::app::SweepOutcome)
