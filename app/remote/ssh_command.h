#pragma once

#include "app/session/host.h"

#include <QString>
#include <QStringList>

// How Loadscope reaches a host: the user's own OpenSSH client, config and
// agent, never a daemon of its own (DESIGN.md "Hosts").
namespace loadscope::app {

struct SshOptions {
    // An ssh config file for the run (ssh -F); empty: the user's own
    // (~/.ssh/config, /etc/ssh/ssh_config), as ssh reads them.
    QString configFile;
    // Bounds on what waits for a host that does not answer: the TCP connect
    // and, once connected, the server's keep-alive replies (ServerAliveInterval
    // times ServerAliveCountMax). Set on ssh's command line, they override the
    // config's: a sweep must learn within seconds that a host went away.
    int connectTimeoutSeconds = 5;
    int aliveIntervalSeconds = 2;
    int aliveCountMax = 3;
};

// The command line that runs `loadscope-cli ARGUMENTS...` on `host`:
//   ssh -T -o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=2
//       -o ServerAliveCountMax=3 [-F FILE] -- DESTINATION 'COMMAND ARG ARG...'
// BatchMode: never a password or host-key prompt (a key from the user's
// agent or config, or a one-line failure). The host's command is the remote
// shell's words as the user wrote them; each argument is quoted for that shell.
QStringList sshCommand(const Host& host, const SshOptions& options, const QStringList& arguments);

// The agent on `host`: sshCommand(host, options, {"lab", "agent", extra...}).
QStringList sshAgentCommand(const Host& host, const SshOptions& options,
                            const QStringList& extra = {});

// What went wrong, in one line naming the host, when ssh ended with
// `exitCode` before or during the agent's work: ssh's own failures (255:
// refused key, unreachable host, a connection cut), the remote shell's
// (127: the command is not installed there, with how to install it; 126:
// not executable), or the agent's own status. `lastErrorLine`: the last
// line ssh or the remote end wrote on stderr.
QString describeSshExit(const Host& host, int exitCode, bool crashed, const QString& lastErrorLine);

// How a failure of ssh is classed, for `hosts check`: the host did not
// answer at all, it answered but refused the key, or past both.
enum class SshStage { Unreachable, Unauthenticated, Connected };
SshStage sshStageOf(int exitCode, const QString& lastErrorLine);

} // namespace loadscope::app
