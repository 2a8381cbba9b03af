#pragma once

#include "app/common/result.h"
#include "app/remote/ssh_command.h"
#include "app/session/host.h"

#include <QCommandLineParser>
#include <QStringList>
#include <vector>

// The options of the commands that reach other hosts over ssh: `hosts
// check`, `sweep` and, with --agents, every load command.
namespace loadscope::cli {

struct HostOptions {
    app::SshOptions ssh;
    // What runs Loadscope on a host named by its destination on the command
    // line (a session's hosts say their own).
    QString command = QString::fromLatin1(app::kDefaultHostCommand);
    double maxClockOffsetMs = 0;
};

// --ssh-config FILE and --max-clock-offset MS (a sweep's hosts say their
// own commands); addHostOptions() adds --agent-command CMD.
void addSshOptions(QCommandLineParser& parser);
void addHostOptions(QCommandLineParser& parser);
// `withCommand`: the parser has --agent-command.
app::Result<HostOptions> readHostOptions(const QCommandLineParser& parser, bool withCommand = true);

// Hosts named by their SSH destinations, each run with options.command; a
// host's name is its destination with every character a name may not hold
// made '_'. Refused in one line: a destination ssh would not take, one given twice.
app::Result<std::vector<app::Host>> hostsOfDestinations(const QStringList& destinations,
                                                        const HostOptions& options);

} // namespace loadscope::cli
