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
#include <functional>
#include <map>
#include <optional>

class QProcess;
class QTimer;

namespace loadscope::app {

class AgentPointRun;
class AgentWatch;

// One ping: the client's clock when it was sent and when the pong came back,
// and the agent's clock in between (µs since the epoch).
struct ClockReading {
    int64_t sentUs = 0;
    int64_t agentUs = 0;
    int64_t receivedUs = 0;
};

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

    // The agent's hello (its software, host name, CPUs, kernel), once open.
    const AgentMessage& hello() const { return m_hello; }

    // A run of one point through this agent; start() sends it. The caller owns it.
    AgentPointRun* newRun(AgentRunRequest request);
    // A watch of a server on the agent's host; start() sends it, end() asks
    // for its window. The caller owns it. Watches run beside a point.
    AgentWatch* newWatch(AgentWatchRequest request);
    // One ping and its pong, within `timeout`; an error when the agent fails
    // or does not answer in time.
    QCoro::Task<Result<ClockReading>> ping(std::chrono::milliseconds timeout);

    // How a process's end is told, instead of "the load agent exited with
    // status N: <its last line on stderr>": an agent behind ssh, whose exit
    // status and last line are ssh's or the remote shell's.
    using ExitDescriber =
        std::function<QString(int exitCode, bool crashed, const QString& lastErrorLine)>;
    void setExitDescriber(ExitDescriber describe) { m_describeExit = std::move(describe); }

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
    friend class AgentWatch;
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
    std::map<uint64_t, QPointer<AgentWatch>> m_watches;
    std::map<uint64_t, int64_t> m_pongs; // ping id -> the agent's clock, once answered
    AgentMessage m_hello;
    ExitDescriber m_describeExit;
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
    // When its measured time began on the agent's clock (µs since the epoch),
    // once it finished; 0 when the agent did not say.
    int64_t measuredFromUs() const { return m_measuredFromUs; }

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
    int64_t m_measuredFromUs = 0;
    QTimer* m_watchdog = nullptr;
};

// A server watched by the agent on its host over one point's window.
class AgentWatch : public QObject {
    Q_OBJECT

public:
    ~AgentWatch() override;

    void start();
    // Asks for the window (the agent takes its second sample now) and awaits
    // it, at most `timeout`.
    QCoro::Task<Result<AgentWindow>> end(std::chrono::milliseconds timeout);

Q_SIGNALS:
    void windowArrived();

private:
    friend class AgentClient;
    AgentWatch(AgentClient* client, AgentWatchRequest request);
    void handle(const AgentMessage& message);
    void finish(Result<AgentWindow> window);

    QPointer<AgentClient> m_client;
    AgentWatchRequest m_request;
    uint64_t m_id = 0;
    bool m_started = false;
    std::optional<Result<AgentWindow>> m_window;
};

} // namespace loadscope::app
