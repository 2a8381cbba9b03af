#pragma once

#include "app/common/result.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

// The user's own machines a session uses over SSH (DESIGN.md "Hosts"): where
// load agents run, where a target's server is measured, where the lab is
// built. Loadscope reaches each with the user's own OpenSSH client, config and
// agent; nothing of its own listens anywhere.
namespace loadscope::app {

inline constexpr const char* kDefaultHostCommand = "loadscope-cli";

struct Host {
    // How targets, the plan and the window name it: letters, digits, '.', '_'
    // and '-', at most 64.
    QString name;
    // What ssh is given: a Host of the user's ssh config, or [user@]host[:port]
    // ("[v6]:port" for an IPv6 address with a port).
    QString destination;
    // What runs Loadscope there, as the remote shell reads it: a program on its
    // PATH, a path, or a prefix such as "sudo -n loadscope-cli".
    QString command = QString::fromLatin1(kDefaultHostCommand);

    friend bool operator==(const Host&, const Host&) = default;
};

// Each rule is one line naming what is wrong, used by the session file, the
// CLI and the window alike.
Result<void> checkHostName(const QString& name);
// Not empty, no space, quote or control character, not beginning with '-' (ssh
// would read it as an option), a port from 1 to 65535 when one is given.
Result<void> checkSshDestination(const QString& destination);
// One line without control characters, not empty.
Result<void> checkHostCommand(const QString& command);
Result<void> checkHost(const Host& host);

// A server process's name as the kernel keeps it (/proc/PID/comm) or its
// program's file name: one line, no '/', at most 255 characters.
Result<void> checkServerProcessName(const QString& name);
// A container's name as docker and podman take it: [a-zA-Z0-9][a-zA-Z0-9_.-]*.
Result<void> checkContainerName(const QString& name);

// The destination as ssh takes it on its command line: "user@host",
// "ssh://user@host:2222" when a port is given (OpenSSH 7.7 and later read
// the URI form), a config Host as it is.
QString sshDestinationArgument(const QString& destination);

// The words of an ssh command line quoted for the remote shell, which joins
// and parses them again: 'it'\''s' style.
QString shellQuoted(const QString& word);

} // namespace loadscope::app
