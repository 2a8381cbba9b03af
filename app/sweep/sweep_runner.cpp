#include "app/sweep/sweep_runner.h"

#include "app/agent/agent_safety.h"
#include "app/common/background_job.h"
#include "app/common/result.h"
#include "app/session/capacity_search.h"
#include "app/session/session.h"
#include "app/session/session_document.h"
#include "app/session/statistics_precision.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/lab_sandbox_command.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/local_server_cpu.h"
#include "app/sweep/machine_environment.h"
#include "app/sweep/sweep_runner_detail.h"
#include "engine/cpu_sampler.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QStandardPaths>
#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <chrono>
#include <iterator>

namespace loadscope::app {

using namespace sweep_detail;

namespace {

// "concurrency 10" or "2000 req/s (10 connections)".
QString levelText(const SweepPoint& point) {
    if (point.rate > 0)
        return QStringLiteral("%1 req/s (%2 connections)").arg(point.rate).arg(point.concurrency);
    return QStringLiteral("concurrency %1").arg(point.concurrency);
}

// Why a finished run measured nothing worth keeping, or empty when it did.
// The sweep's own copy of the session (targets and plan as the sweep started with them) with
// the results stored since, as a level's precision is judged.
Session withStoredResults(const Session& snapshot, const SessionDocument& document) {
    Session current = snapshot;
    current.results = document.session().results;
    return current;
}

QString runFailure(const engine::RunResult& run) {
    if (run.unreachable)
        return run.firstError.empty() ? QStringLiteral("no connection could be established")
                                      : QString::fromStdString(run.firstError);
    if (run.complete == 0 && !run.firstError.empty())
        return QString::fromStdString(run.firstError);
    return {};
}

} // namespace

SweepRunner::SweepRunner(SessionDocument* document, QObject* parent)
    : QObject(parent)
    , m_document(document) {
    // Queued connections (a window on another thread, QSignalSpy) need these.
    qRegisterMetaType<SweepPoint>();
    qRegisterMetaType<PointResult>();
    qRegisterMetaType<SweepOutcome>();
    qRegisterMetaType<ProbeResult>();
    qRegisterMetaType<std::shared_ptr<const engine::Progress>>();
}

SweepRunner::~SweepRunner() {
    // What a sweep in progress awaits (engine run, probe, pause) is not owned
    // by this object: stopped here, it ends by itself shortly after, and the
    // coroutine then unwinds without touching this object (see `alive`), so
    // neither a dangling `this` nor a coroutine frame is left behind.
    ++m_jobId;
    if (m_run)
        m_run->cancel();
    if (m_opening)
        m_opening->abort();
    if (m_openingHosts)
        m_openingHosts->abort();
    if (m_probe)
        m_probe->abort();
    if (m_pauseTimer && m_pauseTimer->isActive())
        m_pauseTimer->start(0);
}

void SweepRunner::setRunning(bool running) {
    if (m_running == running)
        return;
    m_running = running;
    Q_EMIT runningChanged(running);
}

void SweepRunner::cancel() {
    if (!m_running)
        return;
    ++m_jobId; // whatever is in flight now belongs to a dropped job
    if (m_run)
        m_run->cancel();
    if (m_opening)
        m_opening->abort();
    if (m_openingHosts)
        m_openingHosts->abort();
    if (m_probe)
        m_probe->abort();
    // Only while it still runs: a second timeout before the awaiting coroutine
    // resumed (QCoro resumes through a queued call) would resume a dead awaiter.
    if (m_pauseTimer && m_pauseTimer->isActive())
        m_pauseTimer->start(0);
}

QCoro::Task<SweepOutcome> SweepRunner::run() {
    if (m_running)
        co_return failed({}, QStringLiteral("a sweep is already running"));
    // Held until the sweep ends: two sweeps saving one file would each drop
    // the other's points.
    std::shared_ptr<const SessionLock> lock = m_sessionLock;
    if (!lock && m_document && !m_document->filePath().isEmpty()) {
        auto acquired = SessionLock::acquire(m_document->filePath());
        if (!acquired)
            co_return failed({}, acquired.error().toString());
        lock = std::move(*acquired);
    }
    QPointer<SweepRunner> alive(this);
    const quint64 job = ++m_jobId;
    setRunning(true);
    SweepOutcome outcome = co_await runSweep(job);
    if (alive)
        setRunning(false);
    co_return outcome;
}

QCoro::Task<Result<engine::RunResult>> SweepRunner::runEngine(PointRun* run,
                                                              std::optional<SweepPoint> point) {
    // Not a child: if the runner goes, the run is cancelled and this coroutine
    // still resumes, without touching the runner, and deletes the run.
    m_run = run;
    if (point) {
        connect(run, &PointRun::progressAvailable, this,
                [this, p = *point](std::shared_ptr<const engine::Progress> progress) {
                    Q_EMIT progressAvailable(p, std::move(progress));
                });
    }
    run->start();
    Result<engine::RunResult> result = co_await run->result();
    // Its threads have ended. Deleted later: QCoro resumed this coroutine from
    // an event delivered to the run itself.
    run->deleteLater();
    co_return result;
}

QCoro::Task<> SweepRunner::pause(double seconds) {
    auto* timer = new QTimer; // not a child, as the bridge in runEngine()
    timer->setSingleShot(true);
    m_pauseTimer = timer;
    timer->start(std::chrono::milliseconds(qint64(seconds * 1000.0)));
    co_await qCoro(timer).waitForTimeout();
    timer->deleteLater(); // resumed from an event delivered to the timer
}

SweepRunner::Ended SweepRunner::interrupted(const Sweep& sweep, bool runCancelled) {
    if (!sweep.alive)
        return sweep.outcome;
    if (runCancelled || !sweep.alive->isCurrent(sweep.job))
        return cancelled(sweep.outcome);
    return std::nullopt;
}

QCoro::Task<SweepOutcome> SweepRunner::runSweep(quint64 job) {
    Sweep sweep;
    sweep.alive = this;
    sweep.job = job;
    SweepOutcome outcome = co_await runSteps(sweep);
    // Every way out closes the agent, and so tears its lab down.
    if (AgentClient* agent = sweep.agent) {
        co_await agent->close();
        agent->deleteLater();
    }
    // And the hosts' agents, whose ssh connections end with them.
    if (HostAgents* hosts = sweep.hosts) {
        co_await hosts->close();
        hosts->deleteLater();
    }
    co_return outcome;
}

QCoro::Task<SweepOutcome> SweepRunner::runSteps(Sweep& sweep) {
    if (!m_document)
        co_return failed(sweep.outcome, QStringLiteral("no session to run"));
    sweep.session = m_document->session();
    const Session& session = sweep.session;
    if (session.targets.empty())
        co_return failed(sweep.outcome, QStringLiteral("the session has no targets"));
    if (const auto checked = validateSweepPlan(session.plan); !checked)
        co_return failed(sweep.outcome,
                         QStringLiteral("sweep plan: %1").arg(checked.error().message));
    const std::vector<SweepPoint> all = sweepPoints(session);
    sweep.missing = missingPoints(session);
    sweep.outcome.pointCount = int(all.size());
    sweep.outcome.pointsSkipped = int(all.size() - sweep.missing.size());
    const bool precise = session.plan.precisionPercent > 0;
    std::vector<int> looseLevels; // with a precision: levels that may want more rounds
    if (precise) {
        const Session current = withStoredResults(session, *m_document);
        for (int level : session.plan.concurrencyLevels) {
            const LevelPrecision check = levelPrecision(current, level);
            if (!check.tight && check.rounds < session.plan.maxRepetitions)
                looseLevels.push_back(level);
        }
    }
    if (sweep.missing.empty() && looseLevels.empty())
        co_return sweep.outcome;
    for (const Target& target : session.targets) {
        // Any target may need another round at a loose level.
        if (!looseLevels.empty() ||
            std::any_of(sweep.missing.begin(), sweep.missing.end(),
                        [&](const SweepPoint& p) { return p.targetId == target.id; }))
            sweep.targets.push_back(&target);
    }
    // A capacity search's probe and steps run from this machine (or the lab's
    // agent) alone: load from other hosts is refused before any host is opened.
    for (const Target* target : sweep.targets) {
        if (!target->loadFrom.empty() && session.plan.levelKind == SweepLevelKind::Capacity)
            co_return failed(sweep.outcome,
                             QStringLiteral("%1: a capacity search runs its load from this "
                                            "machine; remove the target's load from other hosts")
                                 .arg(targetLabel(*target)));
    }

    if (auto ended = co_await openAgent(sweep))
        co_return *ended;
    if (auto ended = co_await openHosts(sweep))
        co_return *ended;
    if (auto ended = co_await checkTargets(sweep))
        co_return *ended;
    if (m_idleCheckSeconds > 0) {
        if (auto ended = co_await idleCheck(sweep))
            co_return *ended;
    }
    if (m_probeEnabled) {
        if (auto ended = co_await probeTargets(sweep))
            co_return *ended;
    }
    if (session.plan.levelKind == SweepLevelKind::Capacity) {
        if (auto ended = co_await runSearches(sweep))
            co_return *ended;
        co_return sweep.outcome;
    }
    if (!precise) {
        if (auto ended = co_await runPoints(sweep, sweep.missing))
            co_return *ended;
        co_return sweep.outcome;
    }
    // Level by level, so that a level's rounds run next to its first
    // repetitions and pair with them under the same conditions.
    for (int level : session.plan.concurrencyLevels) {
        std::vector<SweepPoint> points;
        std::copy_if(sweep.missing.begin(), sweep.missing.end(), std::back_inserter(points),
                     [level](const SweepPoint& p) { return p.concurrency == level; });
        if (auto ended = co_await runPoints(sweep, points))
            co_return *ended;
        if (auto ended = co_await tighten(sweep, level))
            co_return *ended;
    }
    co_return sweep.outcome;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::runPoints(Sweep& sweep,
                                                       const std::vector<SweepPoint>& points) {
    const double pauseSeconds = sweep.session.plan.pauseSeconds;
    for (const SweepPoint& point : points) {
        if (sweep.pointsStarted > 0 && pauseSeconds > 0 && !interrupted(sweep)) {
            Q_EMIT statusChanged(QStringLiteral("pausing %1 s").arg(pauseSeconds));
            co_await pause(pauseSeconds);
        }
        if (auto ended = interrupted(sweep))
            co_return ended;
        ++sweep.pointsStarted;
        if (auto ended = co_await runPoint(sweep, point))
            co_return ended;
    }
    co_return std::nullopt;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::tighten(Sweep& sweep, int concurrency) {
    const SweepPlan& plan = sweep.session.plan;
    int lastRound = -1;
    for (;;) {
        if (!m_document)
            co_return interrupted(sweep);
        const Session current = withStoredResults(sweep.session, *m_document);
        const LevelPrecision check = levelPrecision(current, concurrency);
        if (check.tight) {
            Q_EMIT precisionFinished(
                concurrency, true,
                QStringLiteral("concurrency %1: every target within ±%2 % after %3 repetitions")
                    .arg(concurrency)
                    .arg(plan.precisionPercent)
                    .arg(check.rounds));
            co_return std::nullopt;
        }
        // A round that stored nothing (its targets were removed) would repeat forever.
        if (check.rounds >= plan.maxRepetitions || check.rounds <= lastRound) {
            QStringList names;
            for (const LoosePrecision& loose : check.loose) {
                const Target* target = sweep.session.findTarget(loose.targetId);
                const QString line = QStringLiteral("%1 at concurrency %2: %3")
                                         .arg(target ? target->displayName() : QStringLiteral("?"))
                                         .arg(concurrency)
                                         .arg(loose.why);
                sweep.outcome.notPinnedDown << line;
                names << line;
            }
            Q_EMIT precisionFinished(concurrency, false,
                                     QStringLiteral("gave up on ±%1 % after %2 repetitions: %3")
                                         .arg(plan.precisionPercent)
                                         .arg(check.rounds)
                                         .arg(names.join(QStringLiteral("; "))));
            co_return std::nullopt;
        }
        lastRound = check.rounds;
        std::vector<SweepPoint> round;
        const DonePoints done(current);
        for (const Target& target : sweep.session.targets) {
            SweepPoint point{sweep.outcome.pointCount, target.id, concurrency, 0, check.rounds};
            if (done.contains(point))
                continue;
            ++sweep.outcome.pointCount;
            ++sweep.outcome.roundPointsAdded;
            round.push_back(point);
        }
        Q_EMIT statusChanged(QStringLiteral("concurrency %1: repetition %2 of at most %3 (%4)")
                                 .arg(concurrency)
                                 .arg(check.rounds + 1)
                                 .arg(plan.maxRepetitions)
                                 .arg(check.loose.empty() ? QString() : check.loose.front().why));
        if (auto ended = co_await runPoints(sweep, round))
            co_return ended;
    }
}

Result<PointRun*> sweep_detail::newPointRun(AgentClient* agent, AgentRunRequest request,
                                            engine::LoadSpec spec) {
    if (request.target.lab && agent)
        return agent->newRun(std::move(request));
    if (auto allowed = checkConnection(request.target, Connector::ThisProcess); !allowed)
        return allowed.error();
    return new LoadRunBridge(std::move(spec));
}

QCoro::Task<SweepRunner::Ended> SweepRunner::preload(Sweep& sweep, const Target& target,
                                                     engine::LoadSpec spec) {
    Q_EMIT statusChanged(
        QStringLiteral("preloading %1: %2 keys").arg(target.displayName()).arg(spec.requests));
    const int concurrency = int(spec.concurrency);
    Result<PointRun*> run = newPointRun(
        sweep.agent, {target, sweep.session.plan, concurrency, 0, true}, std::move(spec));
    if (!run)
        co_return failed(sweep.outcome,
                         QStringLiteral("%1: %2").arg(targetLabel(target), run.error().message));
    const Result<engine::RunResult> loaded = co_await runEngine(*run, std::nullopt);
    if (auto ended = interrupted(sweep, loaded && loaded->cancelled))
        co_return ended;
    if (!loaded)
        co_return unreachable(sweep.outcome, QStringLiteral("%1: preload failed: %2")
                                                 .arg(targetLabel(target), loaded.error().message));
    if (const QString why = runFailure(*loaded); !why.isEmpty())
        co_return unreachable(
            sweep.outcome, QStringLiteral("%1: preload failed: %2").arg(targetLabel(target), why));
    sweep.preloaded.insert(target.id);
    co_return std::nullopt;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::runPoint(Sweep& sweep, const SweepPoint& point) {
    const Target* target = sweep.session.findTarget(point.targetId);
    if (!target->loadFrom.empty() && !m_runSource)
        co_return co_await runHostPoint(sweep, point);
    const engine::SocketAddress address = sweep.addresses.value(target->id);
    // A capacity search's step runs with a plan of its own (capacity_search.h).
    const SweepPlan plan = pointPlan(sweep.session.plan, point);
    auto specs = pointSpecs(*target, point, plan, &address);
    if (!specs) // checked before the first point; only a changed body file gets here
        co_return failed(sweep.outcome,
                         QStringLiteral("%1: %2").arg(targetLabel(*target), specs.error().message));
    if (specs->preload && !sweep.preloaded.contains(target->id)) {
        if (auto ended = co_await preload(sweep, *target, std::move(*specs->preload)))
            co_return ended;
    }

    const engine::ServerCpuSource serverCpu = sweep.serverCpu.value(target->id);
    specs->draft.spec.serverCpu = serverCpu;
    Q_EMIT pointStarted(point, sweep.outcome.pointCount);
    const QDateTime startedAt = QDateTime::currentDateTime();
    // A server on a host of the session is watched there from the end of
    // warm-up (the engine's set-up before it is a few ms).
    AgentWatch* serverWatch =
        target->lab ? nullptr
                    : startServerWatch(sweep, *target,
                                       startedAt.toMSecsSinceEpoch() * 1000 +
                                           int64_t(sweep.session.plan.warmupSeconds * 1e6));
    // Not a conditional expression: GCC mishandles a co_await inside one.
    Result<engine::RunResult> ran = engine::RunResult{};
    if (m_runSource) {
        ran = m_runSource(specs->draft.spec, point);
    } else {
        Result<PointRun*> pointRun = newPointRun(
            sweep.agent, {*target, plan, point.concurrency, point.rate, false, serverCpu},
            std::move(specs->draft.spec));
        if (!pointRun)
            co_return failed(sweep.outcome, QStringLiteral("%1: %2").arg(targetLabel(*target),
                                                                         pointRun.error().message));
        ran = co_await runEngine(*pointRun, point);
    }
    // A point cut short is not a measurement of the plan: keep nothing of it.
    if (auto ended = interrupted(sweep, ran && ran->cancelled)) {
        delete serverWatch;
        co_return ended;
    }
    const engine::RunResult run = ran ? *ran : engine::RunResult{};
    if (const QString why = ran ? runFailure(run) : ran.error().message; !why.isEmpty()) {
        const QString message =
            QStringLiteral("%1 at %2: %3").arg(targetLabel(*target), levelText(point), why);
        ++sweep.outcome.pointsFailed;
        delete serverWatch;
        Q_EMIT pointFailed(point, message);
        co_return unreachable(sweep.outcome, message);
    }
    PointResult result = measuredPointResult(run, point, plan, currentRunEnvironment(startedAt));
    if (target->lab && sweep.agent && sweep.agent->lab())
        recordLabEnvironment(result.environment, *sweep.agent->lab(), target->lab->mode);
    if (serverWatch) {
        co_await takeServerWindow(sweep, serverWatch, *target, result, 0.0);
        if (auto ended = interrupted(sweep))
            co_return ended;
    }
    co_await storeResult(sweep, point, std::move(result));
    co_return std::nullopt;
}

QCoro::Task<> SweepRunner::storeResult(Sweep& sweep, SweepPoint point, PointResult result) {
    if (!m_document || !m_document->session().findTarget(point.targetId))
        co_return; // the target was removed meanwhile: its result has no home
    m_document->putResult(result);
    ++sweep.outcome.pointsRun;
    if (!m_document->filePath().isEmpty()) {
        // Written on a worker thread (a window's GUI thread goes on), and
        // before the next point starts.
        const Result<void> saved = co_await m_document->saveInBackground();
        if (!sweep.alive)
            co_return;
        if (!saved)
            Q_EMIT autosaveFailed(saved.error().toString());
    }
    Q_EMIT pointFinished(point, result);
}

} // namespace loadscope::app
