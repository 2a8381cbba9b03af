#include "app/cli/host_options.h"

#include "app/remote/host_agents.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <cmath>

namespace loadscope::cli {

void addHostOptions(QCommandLineParser& parser) {
    addSshOptions(parser);
    parser.addOption({QStringLiteral("agent-command"),
                      QStringLiteral("What runs Loadscope on a host given by its destination "
                                     "(default: loadscope-cli, from the remote PATH)."),
                      QStringLiteral("CMD")});
}

void addSshOptions(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("ssh-config"),
                      QStringLiteral("Reach the hosts with this ssh config file (ssh -F) instead "
                                     "of yours."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("max-clock-offset"),
                      QStringLiteral("Refuse a host whose clock is further than MS from this "
                                     "machine's (default 100)."),
                      QStringLiteral("MS")});
}

app::Result<HostOptions> readHostOptions(const QCommandLineParser& parser, bool withCommand) {
    HostOptions options;
    options.maxClockOffsetMs = app::kDefaultMaxClockOffsetMs;
    if (parser.isSet(QStringLiteral("ssh-config"))) {
        options.ssh.configFile = parser.value(QStringLiteral("ssh-config"));
        if (!QFileInfo(options.ssh.configFile).isFile())
            return app::invalidInput(
                QStringLiteral("--ssh-config %1: no such file").arg(options.ssh.configFile));
    }
    if (withCommand && parser.isSet(QStringLiteral("agent-command"))) {
        options.command = parser.value(QStringLiteral("agent-command"));
        if (auto checked = app::checkHostCommand(options.command); !checked)
            return checked.error().prefixed(QStringLiteral("--agent-command"));
    }
    if (parser.isSet(QStringLiteral("max-clock-offset"))) {
        bool ok = false;
        const double ms = parser.value(QStringLiteral("max-clock-offset")).toDouble(&ok);
        if (!ok || !std::isfinite(ms) || ms < 0 || ms > 3.6e6)
            return app::invalidInput(
                QStringLiteral("--max-clock-offset wants milliseconds from 0 to 3600000, not '%1'")
                    .arg(parser.value(QStringLiteral("max-clock-offset"))));
        options.maxClockOffsetMs = ms;
    }
    return options;
}

app::Result<std::vector<app::Host>> hostsOfDestinations(const QStringList& destinations,
                                                        const HostOptions& options) {
    static const QRegularExpression notInName(QStringLiteral("[^A-Za-z0-9._-]"));
    std::vector<app::Host> hosts;
    for (const QString& destination : destinations) {
        if (auto checked = app::checkSshDestination(destination); !checked)
            return checked.error();
        app::Host host;
        host.destination = destination;
        host.name = QString(destination).replace(notInName, QStringLiteral("_")).left(64);
        host.command = options.command;
        for (const app::Host& earlier : hosts) {
            if (earlier.name == host.name)
                return app::invalidInput(QStringLiteral("host %1 is named twice").arg(destination));
        }
        hosts.push_back(std::move(host));
    }
    return hosts;
}

} // namespace loadscope::cli
