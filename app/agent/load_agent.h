#pragma once

#include "app/agent/agent_protocol.h"
#include "app/agent/agent_safety.h"

#include <QByteArray>
#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

namespace loadscope::app {

class LoadRunBridge;

// The agent's side of the load agent protocol (agent_protocol.h): it takes
// request lines, builds each run's LoadSpec with the one spec builder, checks
// its address against the safety rule (agent_safety.h), runs it on the
// in-process engine (at the start time the request names, on its clock) and
// writes Progress snapshots and the RunResult back. One run at a time; it
// answers pings with its clock, and watches servers of its host (a window of
// the machine's and the server's CPU) beside a run. The I/O is the caller's (`loadscope-cli lab
// agent` reads stdin and gives every line to handleLine(); `write` puts a reply on stdout), so that
// the agent is tested without a process.
class LoadAgent : public QObject {
    Q_OBJECT

public:
    using Writer = std::function<void(const QByteArray& line)>;

    LoadAgent(Writer write, AgentEnvironment environment, QObject* parent = nullptr);
    ~LoadAgent() override;

    // For tests of what a client does with a host whose clock is off: every
    // time this agent reports (pongs, a result's start, a window) or starts a
    // run at is its clock plus `skew`, as on a host whose clock is that far
    // ahead. `loadscope-cli lab agent --clock-skew-ms` sets it; 0 by default.
    void setClockSkew(std::chrono::milliseconds skew) { m_clockSkewUs = skew.count() * 1000; }
    // The agent's clock as it reports it: µs since the epoch, skew included.
    int64_t clockUs() const;

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
    struct Watch;
    QCoro::Task<> runPoint(uint64_t id, AgentRunRequest request);
    QCoro::Task<> watchServer(uint64_t id, AgentWatchRequest request);
    // Ends a watch whose window has begun: its second sample, and the window sent.
    void endWatch(uint64_t id);
    // Waits on `timer` until the agent's clock reads `atUs` (at once when it
    // has); false when the agent went away meanwhile.
    QCoro::Task<bool> waitUntil(int64_t atUs, QTimer* timer);
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
    QPointer<QTimer> m_startTimer; // a run waiting for its start time
    int64_t m_clockSkewUs = 0;
    std::map<uint64_t, std::unique_ptr<Watch>> m_watches;
};

} // namespace loadscope::app
