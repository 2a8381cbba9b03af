#include "app/sweep/sweep_runner.h"

#include "app/session/session.h"
#include "app/session/session_document.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/machine_environment.h"

#include <QCoroTimer>
#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QTimer>
#include <algorithm>
#include <chrono>

namespace loadscope::app {

namespace {

SweepOutcome failed(SweepOutcome outcome, QString error) {
    outcome.status = SweepOutcome::Status::Failed;
    outcome.error = std::move(error);
    return outcome;
}

SweepOutcome unreachable(SweepOutcome outcome, QString error) {
    outcome.unreachable = true;
    return failed(std::move(outcome), std::move(error));
}

SweepOutcome cancelled(SweepOutcome outcome) {
    outcome.status = SweepOutcome::Status::Cancelled;
    return outcome;
}

QString targetLabel(const Target& target) {
    return QStringLiteral("target '%1'").arg(target.displayName());
}

// Why a finished run measured nothing worth keeping, or empty when it did.
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
    QPointer<SweepRunner> alive(this);
    const quint64 job = ++m_jobId;
    setRunning(true);
    SweepOutcome outcome = co_await runSweep(job);
    if (!alive)
        co_return outcome;
    setRunning(false);
    if (outcome.status == SweepOutcome::Status::Failed)
        Q_EMIT sweepFailed(outcome.error);
    Q_EMIT sweepFinished(outcome);
    co_return outcome;
}

QCoro::Task<engine::RunResult> SweepRunner::runEngine(engine::LoadSpec spec,
                                                      std::optional<SweepPoint> point) {
    // Not a child: if the runner goes, the run is cancelled and this coroutine
    // still resumes, without touching the runner, and deletes the bridge.
    auto* bridge = new LoadRunBridge(std::move(spec));
    m_run = bridge;
    if (point) {
        connect(bridge, &LoadRunBridge::progressAvailable, this,
                [this, p = *point](std::shared_ptr<const engine::Progress> progress) {
                    Q_EMIT progressAvailable(p, std::move(progress));
                });
    }
    bridge->start();
    engine::RunResult result = co_await bridge->result();
    // Its threads have ended. Deleted later: QCoro resumed this coroutine from
    // an event delivered to the bridge itself.
    bridge->deleteLater();
    co_return result;
}

QCoro::Task<bool> SweepRunner::pause(double seconds, quint64 job) {
    QPointer<SweepRunner> alive(this);
    auto* timer = new QTimer; // not a child, as the bridge in runEngine()
    timer->setSingleShot(true);
    m_pauseTimer = timer;
    timer->start(std::chrono::milliseconds(qint64(seconds * 1000.0)));
    co_await qCoro(timer).waitForTimeout();
    timer->deleteLater(); // resumed from an event delivered to the timer
    co_return alive&& isCurrent(job);
}

QCoro::Task<SweepOutcome> SweepRunner::runSweep(quint64 job) {
    QPointer<SweepRunner> alive(this);
    SweepOutcome outcome;
    if (!m_document)
        co_return failed(outcome, QStringLiteral("no session to run"));
    // A copy: edits made while the sweep runs do not change what it runs.
    const Session session = m_document->session();
    if (session.targets.empty())
        co_return failed(outcome, QStringLiteral("the session has no targets"));
    if (const auto problem = validateSweepPlan(session.plan))
        co_return failed(outcome, QStringLiteral("sweep plan: %1").arg(*problem));
    const SweepPlan& plan = session.plan;
    const std::vector<SweepPoint> all = sweepPoints(session);
    const std::vector<SweepPoint> missing = missingPoints(session);
    outcome.pointCount = int(all.size());
    outcome.pointsSkipped = int(all.size() - missing.size());
    if (missing.empty())
        co_return outcome;

    // Pre-flight: every target still to run must build a spec at every level
    // it runs at and resolve, before the first point costs any time.
    std::vector<const Target*> targets;
    for (const Target& target : session.targets) {
        if (std::any_of(missing.begin(), missing.end(),
                        [&](const SweepPoint& p) { return p.targetId == target.id; }))
            targets.push_back(&target);
    }
    QHash<QUuid, engine::SocketAddress> addresses;
    for (const Target* target : targets) {
        Q_EMIT statusChanged(QStringLiteral("checking %1").arg(target->displayName()));
        std::optional<LoadSpecDraft> draft;
        for (const SweepPoint& point : missing) {
            if (point.targetId != target->id)
                continue;
            QString error;
            draft = draftLoadSpec(*target, point.concurrency, plan, &error);
            if (!draft)
                co_return failed(outcome,
                                 QStringLiteral("%1: %2").arg(targetLabel(*target), error));
        }
        const ResolvedAddress resolved = co_await resolveEndpoint(draft->endpoint);
        if (!alive)
            co_return outcome;
        if (!isCurrent(job))
            co_return cancelled(outcome);
        if (!resolved.address)
            co_return unreachable(
                outcome, QStringLiteral("%1: %2").arg(targetLabel(*target), resolved.error));
        addresses.insert(target->id, *resolved.address);
    }

    if (m_probeEnabled) {
        for (const Target* target : targets) {
            Q_EMIT statusChanged(
                QStringLiteral("probing %1 (%2)").arg(target->displayName(), target->endpoint()));
            // Not a child, as the bridge in runEngine().
            auto* probe = new TargetProbe;
            m_probe = probe;
            const ProbeResult probed = co_await probe->probe(*target);
            probe->deleteLater();
            if (!alive)
                co_return outcome;
            if (!isCurrent(job))
                co_return cancelled(outcome);
            Q_EMIT probeFinished(target->id, probed);
            if (!probed.ok)
                co_return unreachable(
                    outcome, QStringLiteral("%1 (%2) did not answer the probe: %3")
                                 .arg(targetLabel(*target), target->endpoint(), probed.error));
        }
    }

    QSet<QUuid> preloaded;
    bool first = true;
    for (const SweepPoint& point : missing) {
        if (!isCurrent(job))
            co_return cancelled(outcome);
        if (!first && plan.pauseSeconds > 0) {
            Q_EMIT statusChanged(QStringLiteral("pausing %1 s").arg(plan.pauseSeconds));
            const bool goOn = co_await pause(plan.pauseSeconds, job);
            if (!alive)
                co_return outcome;
            if (!goOn)
                co_return cancelled(outcome);
        }
        first = false;
        const Target* target = session.findTarget(point.targetId);
        QString error;
        auto draft = draftLoadSpec(*target, point.concurrency, plan, &error);
        if (!draft) // checked above; only a changed body file gets here
            co_return failed(outcome, QStringLiteral("%1: %2").arg(targetLabel(*target), error));
        draft->spec.target = addresses.value(target->id);

        if (target->protocol == TargetProtocol::Memcache && target->memcache.preload &&
            !preloaded.contains(target->id)) {
            auto preload = memcachePreloadSpec(*target, draft->spec, &error);
            if (!preload)
                co_return failed(
                    outcome, QStringLiteral("%1: preload: %2").arg(targetLabel(*target), error));
            Q_EMIT statusChanged(QStringLiteral("preloading %1: %2 keys")
                                     .arg(target->displayName())
                                     .arg(preload->requests));
            const engine::RunResult loaded = co_await runEngine(std::move(*preload), std::nullopt);
            if (!alive)
                co_return outcome;
            if (!isCurrent(job) || loaded.cancelled)
                co_return cancelled(outcome);
            if (const QString why = runFailure(loaded); !why.isEmpty())
                co_return unreachable(
                    outcome,
                    QStringLiteral("%1: preload failed: %2").arg(targetLabel(*target), why));
            preloaded.insert(target->id);
        }

        Q_EMIT pointStarted(point, outcome.pointCount);
        const QDateTime startedAt = QDateTime::currentDateTime();
        const engine::RunResult run = co_await runEngine(std::move(draft->spec), point);
        if (!alive)
            co_return outcome;
        // A point cut short is not a measurement of the plan: keep nothing of it.
        if (!isCurrent(job) || run.cancelled)
            co_return cancelled(outcome);
        if (const QString why = runFailure(run); !why.isEmpty()) {
            const QString message = QStringLiteral("%1 at concurrency %2: %3")
                                        .arg(targetLabel(*target))
                                        .arg(point.concurrency)
                                        .arg(why);
            ++outcome.pointsFailed;
            Q_EMIT pointFailed(point, message);
            co_return unreachable(outcome, message);
        }

        PointResult result = pointResultFromRun(run, point.targetId, point.concurrency,
                                                point.repetition, currentRunEnvironment(startedAt));
        if (!m_document || !m_document->session().findTarget(point.targetId))
            continue; // the target was removed meanwhile: its result has no home
        m_document->putResult(result);
        ++outcome.pointsRun;
        if (m_autosave && !m_document->filePath().isEmpty()) {
            if (const auto saved = m_document->save(); !saved)
                Q_EMIT autosaveFailed(saved.error().toString());
        }
        Q_EMIT pointFinished(point, result);
    }
    co_return outcome;
}

} // namespace loadscope::app
