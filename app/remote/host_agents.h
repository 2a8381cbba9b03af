#pragma once

#include "app/common/result.h"
#include "app/remote/clock_offset.h"
#include "app/remote/ssh_command.h"
#include "app/session/host.h"

#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <chrono>
#include <map>
#include <vector>

namespace loadscope::app {

class AgentClient;

// A clock further off than this is refused before anything starts: such a
// clock is not kept by NTP (which slews an offset below 128 ms and steps one
// above it), so it may be stepped in the middle of a sweep and moves at a
// rate of its own. `--max-clock-offset` sets another bound.
inline constexpr double kDefaultMaxClockOffsetMs = 100;
// Pings per measurement: the one with the shortest round trip is kept.
inline constexpr int kClockPings = 8;

// The hosts' clock measured through `agent`: kClockPings pings, one after
// the other.
QCoro::Task<Result<ClockOffset>> measureClockOffset(AgentClient* agent, int pings = kClockPings);

// The load agents of a sweep's (or a command's) hosts: one `loadscope-cli lab
// agent` behind one ssh connection per host, opened before the first point
// and reused by every point until close(), so that a sweep pays for the
// connection and its agent's start once per host, not once per point. (Not
// ssh's ControlMaster: it would need a socket of its own in the user's files
// and leaves a master behind a crash; an agent's connection ends with it.)
class HostAgents : public QObject {
    Q_OBJECT

public:
    explicit HostAgents(SshOptions ssh, QObject* parent = nullptr);
    ~HostAgents() override;

    void setMaxClockOffsetMs(double ms) { m_maxClockOffsetMs = ms; }
    double maxClockOffsetMs() const { return m_maxClockOffsetMs; }

    // Starts every host's agent at once, exchanges hellos and measures each
    // clock; the first failure, in one line naming its host, ends it (the
    // others are closed). `timeout` bounds the connection and hello of each.
    QCoro::Task<Result<void>> open(const std::vector<Host>& hosts,
                                   std::chrono::milliseconds timeout);
    // Measures the clock of `name` again (before a point: clocks drift),
    // refusing an offset above the bound.
    QCoro::Task<Result<ClockOffset>> remeasure(const QString& name);

    AgentClient* agent(const QString& name) const;
    ClockOffset clock(const QString& name) const;
    const Host* host(const QString& name) const;
    // A line per host whose Loadscope is another version than this one.
    QStringList versionSkew() const;

    // Gives up: open() ends with "cancelled".
    void abort();
    // Closes every agent (its stdin, then a grace period).
    QCoro::Task<> close();

private:
    Result<void> checkOffset(const Host& host, const ClockOffset& clock) const;

    struct Opened {
        Host host;
        QPointer<AgentClient> agent;
        ClockOffset clock;
    };
    SshOptions m_ssh;
    double m_maxClockOffsetMs = kDefaultMaxClockOffsetMs;
    std::vector<Opened> m_hosts;
};

} // namespace loadscope::app
