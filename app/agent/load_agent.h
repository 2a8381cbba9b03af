#pragma once

#include "app/agent/agent_protocol.h"
#include "app/agent/agent_safety.h"

#include <QByteArray>
#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <functional>

namespace loadscope::app {

class LoadRunBridge;

// The agent's side of the load agent protocol (agent_protocol.h): it takes
// request lines, builds each run's LoadSpec with the one spec builder, checks
// its address against the safety rule (agent_safety.h), runs it on the
// in-process engine and writes Progress snapshots and the RunResult back.
// One run at a time. The I/O is the caller's (`loadscope-cli lab agent`
// reads stdin and gives every line to handleLine(); `write` puts a reply on
// stdout), so that the agent is tested without a process.
class LoadAgent : public QObject {
    Q_OBJECT

public:
    using Writer = std::function<void(const QByteArray& line)>;

    LoadAgent(Writer write, AgentEnvironment environment, QObject* parent = nullptr);
    ~LoadAgent() override;

    // One request line, with or without its "\n".
    void handleLine(const QByteArray& line);
    // The client closed its end: the run in progress is cancelled, and
    // finished() follows once it has ended.
    void endOfInput();

Q_SIGNALS:
    // The agent has nothing more to do: `status` 0, or 2 after it refused the
    // client's protocol version.
    void finished(int status);

private:
    QCoro::Task<> runPoint(uint64_t id, AgentRunRequest request);
    void send(const AgentMessage& message) { m_write(encodeAgentMessage(message)); }
    void finishIfDone();

    Writer m_write;
    AgentEnvironment m_environment;
    bool m_greeted = false;
    bool m_inputEnded = false;
    bool m_busy = false;
    bool m_finished = false;
    uint64_t m_runId = 0; // the run in progress, while m_busy
    bool m_cancelRequested = false;
    QPointer<LoadRunBridge> m_run;
};

} // namespace loadscope::app
