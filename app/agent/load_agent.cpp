#include "app/agent/load_agent.h"

#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"

#include <QTimer>

namespace loadscope::app {

LoadAgent::LoadAgent(Writer write, AgentEnvironment environment, QObject* parent)
    : QObject(parent)
    , m_write(std::move(write))
    , m_environment(std::move(environment)) {}

LoadAgent::~LoadAgent() {
    if (m_run)
        m_run->cancel();
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
        if (const auto spoken = checkAgentProtocol(m.protocol); !spoken) {
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
        }
        return;
    case AgentMessage::Type::Progress:
    case AgentMessage::Type::Result:
    case AgentMessage::Type::Error:
        send(agentError(m.id, QStringLiteral("bad request: an agent does not take \"%1\" messages")
                                  .arg(m.type == AgentMessage::Type::Progress ? u"progress"
                                       : m.type == AgentMessage::Type::Result ? u"result"
                                                                              : u"error")));
        return;
    }
}

void LoadAgent::endOfInput() {
    m_inputEnded = true;
    m_cancelRequested = true;
    if (m_run)
        m_run->cancel();
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
    // A name would go to the machine's resolver (and over its network)
    // before the rule below could see where it leads: only addresses.
    if (!engine::SocketAddress::fromNumeric(draft->endpoint.host.toStdString(),
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
    if (const auto allowed = checkAgentTarget(*address, m_environment); !allowed) {
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
    m.result = std::make_shared<const engine::RunResult>(std::move(*result));
    send(m);
}

} // namespace loadscope::app
