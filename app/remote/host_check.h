#pragma once

#include "app/remote/clock_offset.h"
#include "app/remote/ssh_command.h"
#include "app/session/host.h"

#include <QCoroTask>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace loadscope::app {

// What `hosts check` and the window's Check say of one host: how far ssh got,
// what runs there, its clock, and what the lab can build there.
struct HostCheck {
    Host host;
    bool reachable = false;     // ssh reached its sshd
    bool authenticated = false; // and its key was taken
    bool agentAnswered = false; // and Loadscope's agent said hello in this protocol
    QString error;              // the first thing that failed, one line naming the host
    QString software;           // "loadscope 0.1.0"
    QString versionSkew;        // one line when it is another version than this one
    QString hostName;
    QString kernel;
    int cpus = 0;
    std::optional<ClockOffset> clock;
    bool clockTooFar = false; // beyond the offset hosts may have to start together
    // `lab check --json` there: {"modes":[{mode,available,reason}],"servers":[...]},
    // or empty when it could not run (labError says why).
    QJsonObject lab;
    QString labError;

    bool ok() const { return agentAnswered && clock && !clockTooFar; }
};

// Reaches `host` with ssh, runs its agent, exchanges hellos, measures its
// clock and, when `withLab`, runs `lab check --json` there (a few seconds).
// Never longer than the ssh options' bounds plus `timeout` per step.
QCoro::Task<HostCheck> checkHostOverSsh(Host host, SshOptions ssh, bool withLab,
                                        double maxClockOffsetMs, std::chrono::milliseconds timeout);

// One line for a person: "load1 (root@10.0.0.1): loadscope 0.1.0, 32 CPUs,
// kernel 6.1.0, clock +0.4 ms (+/- 0.1 ms); lab: host, container-nat, ...".
QString hostCheckLine(const HostCheck& check);
// The check as JSON, for `hosts check --json`.
QJsonObject hostCheckJson(const HostCheck& check);

} // namespace loadscope::app
