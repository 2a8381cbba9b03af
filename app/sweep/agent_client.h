#pragma once

#include "app/agent/agent_protocol.h"
#include "app/agent/lab_info.h"
#include "app/sweep/point_run.h"

#include <QByteArray>
#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <chrono>
#include <optional>

class QProcess;
class QTimer;

namespace loadscope::app {

class AgentPointRun;

// A load agent process (`loadscope-cli lab agent`, alone or behind
// `loadscope-cli lab sandbox ... --`) and the agent protocol spoken with it,
// without ever blocking the thread it lives on: the process is a QProcess,
// read as its lines arrive. One point runs at a time (newRun()); a point's
// run is a PointRun like the in-process engine's, so the SweepRunner cannot
// tell the two apart.
//
// An agent that dies, falls silent or says something malformed ends the
// point in progress with one line and stays failed: every later run fails
// with the same line.
class AgentClient : public QObject {
    Q_OBJECT

public:
    // `command`: the program, then its arguments.
    explicit AgentClient(QStringList command, QObject* parent = nullptr);
    // Kills a process still running (close() is the orderly way).
    ~AgentClient() override;

    // Starts the process, reads the lab line when one comes first, and
    // exchanges hellos, all within `timeout` (a lab takes seconds to build).
    QCoro::Task<Result<void>> open(std::chrono::milliseconds timeout);
    // The lab the sandbox printed; nullopt for an agent started alone.
    const std::optional<LabInfo>& lab() const { return m_lab; }

    // A run of one point through this agent; start() sends it. The caller owns it.
    AgentPointRun* newRun(AgentRunRequest request);

    // Closes the agent's stdin, so that it ends (and its lab is torn down
    // with it), and waits up to `grace` before killing it.
    QCoro::Task<> close(std::chrono::milliseconds grace = std::chrono::seconds(5));

    // Gives up: open() and the run in progress end with "cancelled".
    void abort() { fail(QStringLiteral("cancelled")); }
    // Why the agent can no longer run points; empty while it can.
    const QString& failure() const { return m_failure; }

    // A run that hears nothing from the agent for this long fails (the engine
    // publishes progress about ten times a second, so silence means a hang).
    void setSilenceTimeout(std::chrono::milliseconds timeout) { m_silenceTimeout = timeout; }
    std::chrono::milliseconds silenceTimeout() const { return m_silenceTimeout; }

Q_SIGNALS:
    // open() is settled (hello, refusal, death or timeout) or the agent failed.
    void stateChanged();

private:
    friend class AgentPointRun;
    void send(const AgentMessage& message);
    void readLines();
    void readErrors();
    void handleLine(const QByteArray& line);
    // The agent is unusable from now on: the active run and open() learn `why`.
    void fail(const QString& why);
    void processEnded();

    QStringList m_command;
    QProcess* m_process = nullptr;
    std::optional<LabInfo> m_lab;
    bool m_greeted = false;
    bool m_linesSeen = false;
    QString m_failure;
    QByteArray m_lastErrorLine; // the agent's or sandbox's stderr, for a death's message
    QByteArray m_partialError;
    uint64_t m_nextId = 1;
    QPointer<AgentPointRun> m_active;
    std::chrono::milliseconds m_silenceTimeout{std::chrono::seconds(15)};
};

// One point through an AgentClient.
class AgentPointRun : public PointRun {
    Q_OBJECT

public:
    ~AgentPointRun() override;

    void start() override;
    void cancel() noexcept override;
    QCoro::Task<Result<engine::RunResult>> result() override;

private:
    friend class AgentClient;
    AgentPointRun(AgentClient* client, AgentRunRequest request);
    void handle(const AgentMessage& message);
    void finish(Result<engine::RunResult> result);

    QPointer<AgentClient> m_client;
    AgentRunRequest m_request;
    uint64_t m_id = 0;
    bool m_started = false;
    bool m_finished = false;
    bool m_cancelling = false; // its deadline is the cancel's, progress no longer extends it
    std::optional<Result<engine::RunResult>> m_result;
    QTimer* m_watchdog = nullptr;
};

} // namespace loadscope::app
