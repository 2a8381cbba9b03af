// SweepRunner's steps for the session's hosts (DESIGN.md "Hosts"): their
// agents opened before the first point, a point loaded from several of them
// and merged, and a server host's window over a point.
#include "app/remote/host_agents.h"
#include "app/remote/load_split.h"
#include "app/remote/local_window_watch.h"
#include "app/remote/multi_agent_point_run.h"
#include "app/session/session_document.h"
#include "app/sweep/local_server_cpu.h"
#include "app/sweep/machine_environment.h"
#include "app/sweep/sweep_runner_detail.h"

#include <QDateTime>
#include <algorithm>
#include <cmath>

namespace loadscope::app {

using namespace sweep_detail;

namespace {

using std::chrono::milliseconds;

// The watch of a server host answers within this once asked for its window.
constexpr milliseconds kWindowTimeout{5000};

// "on host 'load1'" and the like: the hosts a target loads from, for messages.
QString hostList(const std::vector<QString>& names) {
    QStringList quoted;
    for (const QString& name : names)
        quoted << QStringLiteral("'%1'").arg(name);
    return quoted.join(QStringLiteral(", "));
}

// What the agent there is asked to watch: the target's PID or cgroup, else its
// process or container by name.
AgentWatchRequest watchRequestOf(const Target& target, int64_t atUs) {
    AgentWatchRequest request;
    if (target.serverPid > 0) {
        request.serverCpu.pid = target.serverPid;
        request.serverCpu.withChildren = true;
    }
    request.serverCpu.cgroup = target.serverCgroup.toStdString();
    request.process = target.serverProcess;
    request.container = target.serverContainer;
    request.atUs = atUs;
    return request;
}

// Each host's part as a result keeps it: its own run as a one-host point,
// judged for noise on its own machine.
std::vector<AgentShare> sharesOf(const std::vector<HostPartOutcome>& parts, const SweepPoint& point,
                                 const SweepPlan& plan, const RunEnvironment& environment) {
    std::vector<AgentShare> shares;
    for (const HostPartOutcome& part : parts) {
        AgentShare share;
        share.host = part.host;
        share.software = part.software;
        share.clockOffsetMs = part.clock.offsetMs;
        share.clockUncertaintyMs = part.clock.uncertaintyMs;
        share.startMs = part.span.startMs;
        share.endMs = part.span.endMs;
        share.error = part.error;
        if (part.run) {
            PointResult own = measuredPointResult(*part.run, point, plan, environment);
            own.concurrency = int(part.run->concurrency); // its share of the point's
            own.environment.hostName = part.host;
            share.result.push_back(std::move(own));
        }
        shares.push_back(std::move(share));
    }
    return shares;
}

} // namespace

QCoro::Task<SweepRunner::Ended> SweepRunner::openHosts(Sweep& sweep) {
    std::vector<Host> needed;
    const auto need = [&](const QString& name) -> std::optional<QString> {
        if (name.isEmpty())
            return std::nullopt;
        const Host* host = sweep.session.findHost(name);
        if (!host)
            return QStringLiteral("names host '%1', which the session's hosts lack").arg(name);
        if (std::none_of(needed.begin(), needed.end(),
                         [&](const Host& h) { return h.name == name; }))
            needed.push_back(*host);
        return std::nullopt;
    };
    for (const Target* target : sweep.targets) {
        std::vector<QString> names = target->loadFrom;
        if (!target->lab)
            names.push_back(target->serverHost);
        for (const QString& name : names) {
            if (const auto problem = need(name))
                co_return failed(sweep.outcome,
                                 QStringLiteral("%1 %2").arg(targetLabel(*target), *problem));
        }
    }
    if (needed.empty())
        co_return std::nullopt;
    QStringList names;
    for (const Host& host : needed)
        names << host.name;
    Q_EMIT statusChanged(
        QStringLiteral("connecting to %1 over ssh").arg(names.join(QStringLiteral(", "))));
    auto* hosts = new HostAgents(m_ssh); // not a child, as the lab's agent
    hosts->setMaxClockOffsetMs(m_maxClockOffsetMs);
    sweep.hosts = hosts;
    m_openingHosts = hosts;
    const Result<void> opened = co_await hosts->open(needed, m_agentOpenTimeout);
    if (auto ended = interrupted(sweep))
        co_return ended;
    m_openingHosts = nullptr;
    if (!opened)
        co_return unreachable(sweep.outcome, opened.error().message);
    for (const QString& skew : hosts->versionSkew())
        Q_EMIT statusChanged(skew);
    co_return std::nullopt;
}

AgentWatch* SweepRunner::startServerWatch(Sweep& sweep, const Target& target,
                                          int64_t windowStartUs) {
    if (target.serverHost.isEmpty() || !sweep.hosts)
        return nullptr;
    AgentClient* agent = sweep.hosts->agent(target.serverHost);
    if (!agent)
        return nullptr;
    const ClockOffset clock = sweep.hosts->clock(target.serverHost);
    // That moment on the server host's clock.
    const int64_t atUs = windowStartUs + int64_t(std::llround(clock.offsetMs * 1000.0));
    AgentWatch* watch = agent->newWatch(watchRequestOf(target, atUs));
    watch->start();
    return watch;
}

QCoro::Task<> SweepRunner::takeServerWindow(Sweep& sweep, AgentWatch* watch, const Target& target,
                                            PointResult& result, double clientSecondsHere) {
    QPointer<AgentWatch> alive(watch);
    const Result<AgentWindow> window = co_await watch->end(kWindowTimeout);
    if (alive)
        watch->deleteLater();
    if (!sweep.alive)
        co_return;
    if (!window || !window->cpu.valid) {
        Q_EMIT statusChanged(QStringLiteral("%1: no CPU window from server host '%2': %3")
                                 .arg(targetLabel(target), target.serverHost,
                                      window ? QStringLiteral("its /proc/stat was not read")
                                             : window.error().message));
        result.cpu.reset();
        result.noise.clear();
        co_return;
    }
    CpuUsage cpu = cpuUsageOf(window->cpu);
    cpu.host = target.serverHost;
    cpu.clientSecondsHere = clientSecondsHere;
    result.cpu = cpu;
    judgeNoise(result, sweep.session.plan.noiseThresholdPercent);
    if (!window->cpu.serverCpuSeconds)
        Q_EMIT statusChanged(QStringLiteral("%1: server host '%2': %3")
                                 .arg(targetLabel(target), target.serverHost, window->server));
}

QCoro::Task<SweepRunner::Ended> SweepRunner::runHostPoint(Sweep& sweep, const SweepPoint& point) {
    const Target* target = sweep.session.findTarget(point.targetId);
    const SweepPlan& plan = sweep.session.plan;
    const auto fail = [&](const QString& why) {
        const QString message =
            QStringLiteral("%1 at %2 from %3: %4")
                .arg(targetLabel(*target),
                     point.rate > 0 ? QStringLiteral("%1 req/s").arg(point.rate)
                                    : QStringLiteral("concurrency %1").arg(point.concurrency),
                     hostList(target->loadFrom), why);
        ++sweep.outcome.pointsFailed;
        Q_EMIT pointFailed(point, message);
        return unreachable(sweep.outcome, message);
    };
    auto draft = draftLoadSpec(*target, point.concurrency, plan, point.rate);
    if (!draft)
        co_return failed(sweep.outcome,
                         QStringLiteral("%1: %2").arg(targetLabel(*target), draft.error().message));
    // The one endpoint these hosts may send this target's load to.
    const QStringList allow{endpointText(draft->endpoint)};
    const uint64_t requests = plan.limit == PointLimit::Requests ? plan.requestsPerPoint : 0;
    const auto shares =
        splitLoad(point.concurrency, point.rate, requests, int(target->loadFrom.size()));
    if (!shares)
        co_return failed(sweep.outcome, QStringLiteral("%1: %2").arg(targetLabel(*target),
                                                                     shares.error().message));

    // A memcached preload once per sweep, through the first host.
    if (target->memcache.preload && target->protocol == TargetProtocol::Memcache &&
        !sweep.preloaded.contains(target->id)) {
        Q_EMIT statusChanged(QStringLiteral("preloading %1 from host '%2'")
                                 .arg(target->displayName(), target->loadFrom.front()));
        AgentClient* first = sweep.hosts->agent(target->loadFrom.front());
        // Made before the co_await: GCC destroys a co_await operand's temporaries twice.
        PointRun* preloadRun =
            first->newRun({*target, plan, point.concurrency, 0, true, {}, 0, allow});
        const Result<engine::RunResult> loaded = co_await runEngine(preloadRun, std::nullopt);
        if (auto ended = interrupted(sweep, loaded && loaded->cancelled))
            co_return ended;
        if (!loaded || loaded->unreachable)
            co_return fail(QStringLiteral("preload failed: %1")
                               .arg(loaded ? QString::fromStdString(loaded->firstError)
                                           : loaded.error().message));
        sweep.preloaded.insert(target->id);
    }

    // Each clock again: over a long sweep they drift.
    std::vector<HostLoad> loads;
    for (size_t i = 0; i < target->loadFrom.size(); ++i) {
        const QString& name = target->loadFrom[i];
        const Result<ClockOffset> clock = co_await sweep.hosts->remeasure(name);
        if (auto ended = interrupted(sweep))
            co_return ended;
        if (!clock)
            co_return fail(clock.error().message);
        SweepPlan share = plan;
        if (requests > 0)
            share.requestsPerPoint = (*shares)[i].requests;
        loads.push_back(
            {name,
             sweep.hosts->agent(name),
             *clock,
             {*target, share, (*shares)[i].concurrency, (*shares)[i].rate, false, {}, 0, allow}});
    }

    Q_EMIT pointStarted(point, sweep.outcome.pointCount);
    const QDateTime startedAt = QDateTime::currentDateTime();
    const int64_t startUs = commonStartUs(loads);
    const int64_t windowStartUs = startUs + int64_t(plan.warmupSeconds * 1e6);
    // The server's CPU: on its host when it has one, else here when the target
    // names a local server; without either, the point has no CPU window.
    AgentWatch* serverWatch = startServerWatch(sweep, *target, windowStartUs);
    std::unique_ptr<LocalWindowWatch> localWatch;
    if (!serverWatch && (target->serverPid > 0 || !target->serverCgroup.isEmpty())) {
        const engine::SocketAddress none;
        localWatch = std::make_unique<LocalWindowWatch>(localServerCpu(*target, none).source);
        localWatch->start(windowStartUs);
    }
    auto outcome = std::make_shared<std::vector<HostPartOutcome>>();
    PointRun* pointRun = new MultiAgentPointRun(std::move(loads), startUs, outcome);
    const Result<engine::RunResult> ran = co_await runEngine(pointRun, point);
    const bool cancelledRun = ran && ran->cancelled;
    if (auto ended = interrupted(sweep, cancelledRun)) {
        delete serverWatch;
        co_return ended;
    }
    const RunEnvironment environment = currentRunEnvironment(startedAt);
    if (!ran) {
        // The point failed with a host named; what the others measured is kept
        // beside the failure, in a result that counts as not done.
        PointResult kept;
        kept.targetId = target->id;
        kept.concurrency = point.concurrency;
        kept.repetition = point.repetition;
        kept.environment = environment;
        if (point.rate > 0) {
            kept.loadModel = LoadModel::FixedRate;
            kept.offeredRate = point.rate;
        }
        kept.cancelled = true;
        kept.firstError = ran.error().message;
        kept.agents = sharesOf(*outcome, point, plan, environment);
        delete serverWatch;
        if (m_document && m_document->session().findTarget(target->id)) {
            m_document->putResult(kept);
            if (!m_document->filePath().isEmpty()) {
                const Result<void> saved = co_await m_document->saveInBackground();
                if (!sweep.alive)
                    co_return sweep.outcome;
                if (!saved)
                    Q_EMIT autosaveFailed(saved.error().toString());
            }
        }
        co_return fail(ran.error().message);
    }
    PointResult result = measuredPointResult(*ran, point, plan, environment);
    result.agents = sharesOf(*outcome, point, plan, environment);
    // The client's CPU that ran on the server's host: the parts loaded from it.
    double clientHere = 0;
    for (const HostPartOutcome& part : *outcome) {
        if (part.run && part.host == target->serverHost)
            clientHere += part.run->clientCpuSeconds;
    }
    if (serverWatch) {
        co_await takeServerWindow(sweep, serverWatch, *target, result, clientHere);
        if (auto ended = interrupted(sweep))
            co_return ended;
    } else if (localWatch) {
        const std::optional<engine::CpuWindow> window = co_await localWatch->end();
        if (auto ended = interrupted(sweep))
            co_return ended;
        if (window) {
            CpuUsage cpu = cpuUsageOf(*window);
            cpu.clientSecondsHere = 0; // every part ran on another host
            result.cpu = cpu;
            judgeNoise(result, plan.noiseThresholdPercent);
        }
    }
    co_await storeResult(sweep, point, std::move(result));
    co_return std::nullopt;
}

} // namespace loadscope::app
