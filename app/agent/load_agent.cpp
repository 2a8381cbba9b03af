#include "app/agent/load_agent.h"

#include "app/agent/watched_server.h"
#include "app/common/background_job.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"

#include <QCoroTimer>
#include <QTimer>
#include <ctime>

namespace loadscope::app {

namespace {

// A start further ahead than this is a client whose idea of this clock is wrong.
constexpr int64_t kMaxStartAheadUs = 60'000'000;

int64_t clockNowNs(clockid_t clock) {
    timespec now{};
    ::clock_gettime(clock, &now);
    return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

} // namespace

// A server watched over one point's window.
struct LoadAgent::Watch {
    engine::CpuSampler sampler;
    engine::CpuSample start;
    int64_t fromUs = 0;
    QString server;
    bool started = false;      // the first sample is taken
    bool endRequested = false; // "unwatch" came
    QPointer<QTimer> timer;    // waits for the window's start
};

int64_t LoadAgent::clockUs() const {
    return clockNowNs(CLOCK_REALTIME) / 1000 + m_clockSkewUs;
}

LoadAgent::LoadAgent(Writer write, AgentEnvironment environment, QObject* parent)
    : QObject(parent)
    , m_write(std::move(write))
    , m_environment(std::move(environment)) {}

LoadAgent::~LoadAgent() {
    if (m_run)
        m_run->cancel();
    if (m_startTimer)
        m_startTimer->start(0);
    for (auto& [id, watch] : m_watches) {
        if (watch->timer)
            watch->timer->start(0);
    }
}

void LoadAgent::handleLine(const QByteArray& line) {
    if (m_finished || line.trimmed().isEmpty())
        return;
    auto decoded = decodeAgentMessage(line);
    if (!decoded) {
        send(agentError(0, QStringLiteral("bad request: %1").arg(decoded.error().message)));
        return;
    }
    AgentMessage& m = *decoded;
    if (!m_greeted && m.type != AgentMessage::Type::Hello) {
        send(agentError(m.id, QStringLiteral("bad request: the first request must be hello")));
        return;
    }
    switch (m.type) {
    case AgentMessage::Type::Hello:
        if (const auto spoken = checkAgentProtocol(m.protocol, m.software); !spoken) {
            send(agentError(0, spoken.error().message));
            m_finished = true;
            // Queued: the caller's handleLine() returns before the agent ends.
            QTimer::singleShot(0, this, [this] { Q_EMIT finished(2); });
            return;
        }
        m_greeted = true;
        send(agentHello(m_environment.ownNetns));
        return;
    case AgentMessage::Type::Run:
        if (m_busy) {
            send(agentError(m.id, QStringLiteral("run %1 is still in progress").arg(m_runId)));
            return;
        }
        m_busy = true;
        m_runId = m.id;
        m_cancelRequested = false;
        QCoro::connect(runPoint(m.id, std::move(*m.run)), this, [this] {
            m_busy = false;
            finishIfDone();
        });
        return;
    case AgentMessage::Type::Cancel:
        // A cancel of a run that has ended already crossed its result: nothing to do.
        if (m_busy && m.id == m_runId) {
            m_cancelRequested = true;
            if (m_run)
                m_run->cancel();
            if (m_startTimer)
                m_startTimer->start(0); // no longer waits for its start
        }
        return;
    case AgentMessage::Type::Ping: {
        AgentMessage pong;
        pong.type = AgentMessage::Type::Pong;
        pong.id = m.id;
        pong.clockUs = clockUs();
        send(pong);
        return;
    }
    case AgentMessage::Type::Watch:
        if (m_watches.count(m.id)) {
            send(agentError(m.id, QStringLiteral("watch %1 is already open").arg(m.id)));
            return;
        }
        m_watches[m.id] = std::make_unique<Watch>();
        QCoro::connect(watchServer(m.id, std::move(*m.watch)), this, [] {});
        return;
    case AgentMessage::Type::Unwatch: {
        const auto found = m_watches.find(m.id);
        if (found == m_watches.end())
            return; // it ended already (its server was never found): its error is sent
        Watch& watch = *found->second;
        watch.endRequested = true;
        if (watch.started)
            endWatch(m.id);
        else if (watch.timer)
            watch.timer->start(0); // the window begins and ends now
        return;
    }
    case AgentMessage::Type::Progress:
    case AgentMessage::Type::Result:
    case AgentMessage::Type::Error:
    case AgentMessage::Type::Pong:
    case AgentMessage::Type::Window:
        send(agentError(m.id, QStringLiteral("bad request: an agent does not take \"%1\" messages")
                                  .arg(m.type == AgentMessage::Type::Progress ? u"progress"
                                       : m.type == AgentMessage::Type::Result ? u"result"
                                       : m.type == AgentMessage::Type::Pong   ? u"pong"
                                       : m.type == AgentMessage::Type::Window ? u"window"
                                                                              : u"error")));
        return;
    }
}

QCoro::Task<bool> LoadAgent::waitUntil(int64_t atUs, QTimer* timer) {
    QPointer<LoadAgent> alive(this);
    const int64_t waitUs = atUs - clockUs();
    if (waitUs <= 0)
        co_return true;
    timer->setSingleShot(true);
    timer->setTimerType(Qt::PreciseTimer);
    timer->start(std::chrono::milliseconds((waitUs + 999) / 1000));
    co_await qCoro(timer).waitForTimeout();
    co_return bool(alive);
}

QCoro::Task<> LoadAgent::watchServer(uint64_t id, AgentWatchRequest request) {
    QPointer<LoadAgent> alive(this);
    // /proc walked and docker asked off the agent's loop: a run's progress goes on.
    // The task made in a statement of its own: GCC destroys the temporaries of
    // a co_await's operand (here the lambda's captured request) twice.
    auto finding = runOnWorkerThread([request] { return findWatchedServer(request); });
    const WatchedServer server = co_await finding;
    if (!alive || !m_watches.count(id))
        co_return;
    m_watches[id]->sampler = engine::CpuSampler(server.source);
    m_watches[id]->server = server.description;
    if (request.atUs > 0 && !m_watches[id]->endRequested) {
        auto* timer = new QTimer; // not a child: resumed from its own event, deleted after
        m_watches[id]->timer = timer;
        const bool waited = co_await waitUntil(request.atUs, timer);
        timer->deleteLater();
        if (!waited || !m_watches.count(id))
            co_return;
    }
    Watch& watch = *m_watches[id];
    watch.start = watch.sampler.sample();
    watch.fromUs = clockUs();
    watch.started = true;
    if (watch.endRequested)
        endWatch(id);
}

void LoadAgent::endWatch(uint64_t id) {
    const auto found = m_watches.find(id);
    if (found == m_watches.end())
        return;
    Watch& watch = *found->second;
    const engine::CpuSample end = watch.sampler.sample();
    AgentMessage m;
    m.type = AgentMessage::Type::Window;
    m.id = id;
    AgentWindow window;
    window.cpu = engine::cpuWindow(watch.start, end, engine::CpuSampler::ticksPerSecond());
    window.fromUs = watch.fromUs;
    window.toUs = clockUs();
    window.server = watch.server;
    // A profile of the server host over the window (by kernel path and process)
    // would be sampled between the same two moments and ride here as one more key.
    m.window = std::move(window);
    m_watches.erase(found);
    send(m);
}

void LoadAgent::endOfInput() {
    m_inputEnded = true;
    m_cancelRequested = true;
    if (m_run)
        m_run->cancel();
    if (m_startTimer)
        m_startTimer->start(0);
    // Nobody is left to read a window: the watches end unreported.
    for (auto& [id, watch] : m_watches) {
        if (watch->timer)
            watch->timer->start(0);
    }
    m_watches.clear();
    finishIfDone();
}

void LoadAgent::finishIfDone() {
    if (!m_inputEnded || m_busy || m_finished)
        return;
    m_finished = true;
    Q_EMIT finished(0);
}

QCoro::Task<> LoadAgent::runPoint(uint64_t id, AgentRunRequest request) {
    QPointer<LoadAgent> alive(this);
    const QString prefix = QStringLiteral("target '%1'").arg(request.target.displayName());
    auto draft = draftLoadSpec(request.target, request.concurrency, request.plan, request.rate);
    if (!draft) {
        send(agentError(id, QStringLiteral("%1: %2").arg(prefix, draft.error().message)));
        co_return;
    }
    // Decided on the endpoint as the request wrote it, before a name is resolved.
    const bool allowedByRequest = endpointAllowed(draft->endpoint, request.allow);
    // A name would go to the machine's resolver (and over its network) before
    // the rule below could see where it leads: only addresses, unless the user
    // chose that very name for this host's load (the request allows it).
    if (!allowedByRequest && !engine::SocketAddress::fromNumeric(draft->endpoint.host.toStdString(),
                                                                 draft->endpoint.port)) {
        send(agentError(id, QStringLiteral("refusing to send load to %1:%2: the agent takes "
                                           "addresses, not host names, which it would have to "
                                           "resolve before its rule could look at them")
                                .arg(draft->endpoint.host)
                                .arg(draft->endpoint.port)));
        co_return;
    }
    const Result<engine::SocketAddress> address = co_await resolveEndpoint(draft->endpoint);
    if (!alive)
        co_return;
    if (!address) {
        send(agentError(id, QStringLiteral("%1: %2").arg(prefix, address.error().message)));
        co_return;
    }
    if (const auto allowed = checkConnection(request.target, Connector::LoadAgent, &*address,
                                             &m_environment, allowedByRequest);
        !allowed) {
        send(agentError(id, allowed.error().message));
        co_return;
    }
    engine::LoadSpec spec = std::move(draft->spec);
    spec.target = *address;
    spec.serverCpu = request.serverCpu;
    spec.serverCpu.threads.clear(); // another process's thread ids mean nothing here
    if (request.preload) {
        auto preload = memcachePreloadSpec(request.target, spec);
        if (!preload || !*preload) {
            send(agentError(id, QStringLiteral("%1: %2").arg(
                                    prefix, preload ? QStringLiteral("it asks for no preload")
                                                    : preload.error().message)));
            co_return;
        }
        spec = std::move(**preload);
    }
    if (const auto problem = engine::validateLoadSpec(spec)) {
        send(
            agentError(id, QStringLiteral("%1: %2").arg(prefix, QString::fromStdString(*problem))));
        co_return;
    }
    if (request.startAtUs > 0) {
        const int64_t aheadUs = request.startAtUs - clockUs();
        if (aheadUs > kMaxStartAheadUs) {
            send(agentError(id, QStringLiteral("%1: its start is %2 s ahead of this host's clock "
                                               "(at most %3 s)")
                                    .arg(prefix)
                                    .arg(double(aheadUs) / 1e6, 0, 'f', 1)
                                    .arg(kMaxStartAheadUs / 1'000'000)));
            co_return;
        }
        if (!m_cancelRequested) {
            auto* timer = new QTimer; // not a child, as the bridge below
            m_startTimer = timer;
            const bool waited = co_await waitUntil(request.startAtUs, timer);
            timer->deleteLater();
            if (!waited)
                co_return;
        }
    }
    // Not a child: deleted below, after its last queued call reached it.
    auto* bridge = new LoadRunBridge(std::move(spec));
    m_run = bridge;
    connect(bridge, &PointRun::progressAvailable, this,
            [this, id](std::shared_ptr<const engine::Progress> progress) {
                AgentMessage m;
                m.type = AgentMessage::Type::Progress;
                m.id = id;
                m.progress = std::move(progress);
                send(m);
            });
    bridge->start();
    // A cancel that came while the spec was built stops the run at once.
    if (m_cancelRequested)
        bridge->cancel();
    Result<engine::RunResult> result = co_await bridge->result();
    bridge->deleteLater();
    if (!alive)
        co_return;
    AgentMessage m;
    m.type = AgentMessage::Type::Result;
    m.id = id;
    if (result->measureStartNs > 0) {
        // The engine's start on CLOCK_MONOTONIC, told on the clock pings report.
        const int64_t agoNs = clockNowNs(CLOCK_MONOTONIC) - result->measureStartNs;
        m.measuredFromUs = clockUs() - agoNs / 1000;
    }
    m.result = std::make_shared<const engine::RunResult>(std::move(*result));
    send(m);
}

} // namespace loadscope::app
