// loadscope-cli lab check | sandbox | agent: the deployment lab from the command line.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/common/json_bytes.h"
#include "app/lab/lab_run.h"
#include "app/lab/mode_check.h"
#include "app/session/target_rules.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <utility>
#include <vector>

namespace loadscope::cli {

namespace {

const char* const kLabUsage =
    "Usage: loadscope-cli lab SUBCOMMAND [options]\n"
    "\n"
    "The deployment lab: the same server in several deployment modes, built inside a sandbox of\n"
    "user, network, mount and PID namespaces that never touches the machine's own network.\n"
    "\n"
    "Subcommands:\n"
    "  check      which modes this machine and user can build, and why not\n"
    "  sandbox    build modes, start a server in each, run a command in the client namespace\n"
    "  agent      the load agent (agent protocol on stdin/stdout) the lab and the sweep drive\n"
    "\n"
    "'loadscope-cli lab SUBCOMMAND --help' describes a subcommand's options.\n";

// --server-opt's keys and the servers that take each, from the rule that checks them
// (labServerOptionRanges): "size= (http, nginx, apache), ..., backends= (every server: ...)".
QString serverOptionList() {
    std::vector<std::pair<QString, QStringList>> keys; // in the order the servers name them
    const auto& kinds = app::lab::labServerKinds();
    for (const app::lab::LabServerKind kind : kinds) {
        const QString server = app::lab::labServerKindId(kind);
        for (const app::LabServerOptionRange& range : app::labServerOptionRanges(server)) {
            auto found = std::find_if(keys.begin(), keys.end(),
                                      [&](const auto& key) { return key.first == range.key; });
            if (found == keys.end())
                found = keys.insert(keys.end(), {range.key, {}});
            found->second.append(server);
        }
    }
    // The option every server takes last.
    std::stable_partition(keys.begin(), keys.end(), [&kinds](const auto& key) {
        return key.second.size() != qsizetype(kinds.size());
    });
    QStringList parts;
    for (const auto& [key, servers] : keys)
        parts.append(QStringLiteral("%1= (%2)")
                         .arg(key, servers.size() == qsizetype(kinds.size())
                                       ? QStringLiteral("every server: cluster-ip's backend pods")
                                       : servers.join(QStringLiteral(", "))));
    return parts.join(QStringLiteral(", "));
}

std::string cliPath() {
    return QCoreApplication::applicationFilePath().toStdString();
}

int runCheck(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints each deployment mode of the lab: buildable, or why not. Found by creating\n"
        "throwaway devices inside a sandbox; never loads a module, never touches the machine's\n"
        "own network namespace. Exit status 0, or 3 when no sandbox can be made."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("One JSON object on stdout.")});
    if (const auto exit = parseOrExit(parser, arguments, io))
        return *exit;
    if (!parser.positionalArguments().isEmpty()) {
        printError(io, arguments.constFirst(),
                   QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments()[0]));
        return ExitUsage;
    }
    auto modes = app::lab::checkModes();
    if (!modes) {
        printError(io, arguments.constFirst(), modes.error().message);
        return ExitUnreachable;
    }
    const auto servers = app::lab::checkServers(cliPath());
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray modeList;
        for (const auto& mode : *modes) {
            QJsonObject described{{QStringLiteral("mode"), app::lab::labModeId(mode.mode)},
                                  {QStringLiteral("available"), mode.available},
                                  {QStringLiteral("reason"), mode.reason}};
            if (const QString mimics = app::lab::labModeMimics(mode.mode); !mimics.isEmpty())
                described.insert(QStringLiteral("mimics"), mimics);
            const app::lab::ServerHostReach reach = app::lab::serverHostReach(mode.mode);
            described.insert(reach.refused ? QStringLiteral("serverHostRefused")
                                           : QStringLiteral("serverHost"),
                             reach.text);
            modeList.append(described);
        }
        QJsonArray serverList;
        for (const auto& server : servers)
            serverList.append(
                QJsonObject{{QStringLiteral("server"), app::lab::labServerKindId(server.kind)},
                            {QStringLiteral("available"), server.available},
                            {QStringLiteral("detail"), server.detail}});
        const QByteArray json = app::jsonBytes(QJsonObject{{QStringLiteral("modes"), modeList},
                                                           {QStringLiteral("servers"), serverList}},
                                               QJsonDocument::Compact);
        std::fprintf(io.out, "%s\n", json.constData());
        return ExitOk;
    }
    std::fprintf(io.out, "Modes:\n");
    for (const auto& mode : *modes) {
        const QString id = app::lab::labModeId(mode.mode);
        if (mode.available)
            std::fprintf(
                io.out, "  %-24s buildable%s\n", qPrintable(id),
                mode.reason.isEmpty() ? "" : qPrintable(QStringLiteral(" (%1)").arg(mode.reason)));
        else
            std::fprintf(io.out, "  %-24s not buildable: %s\n", qPrintable(id),
                         qPrintable(mode.reason));
        if (const QString mimics = app::lab::labModeMimics(mode.mode); !mimics.isEmpty())
            std::fprintf(io.out, "  %-24s %s\n", "", qPrintable(mimics));
    }
    std::fprintf(io.out, "A client on the server host (--client-placement server-host) reaches:\n");
    for (const auto& mode : *modes) {
        const app::lab::ServerHostReach reach = app::lab::serverHostReach(mode.mode);
        std::fprintf(io.out, "  %-24s %s%s\n", qPrintable(app::lab::labModeId(mode.mode)),
                     reach.refused ? "refused: " : "", qPrintable(reach.text));
    }
    std::fprintf(io.out, "Servers:\n");
    for (const auto& server : servers)
        std::fprintf(io.out, "  %-24s %s%s\n", qPrintable(app::lab::labServerKindId(server.kind)),
                     server.available ? "" : "not available: ", qPrintable(server.detail));
    return ExitOk;
}

app::Result<std::vector<int>> cpusOption(const QCommandLineParser& parser, const QString& name) {
    if (!parser.isSet(name))
        return std::vector<int>{};
    const QString text = parser.value(name);
    auto cpus = app::parseCpuList(text);
    if (cpus) {
        if (auto exist = app::checkCpusExist(*cpus); !exist)
            cpus = exist.error();
    }
    if (!cpus)
        return cpus.error().prefixed(QStringLiteral("--%1 '%2'").arg(name, text));
    if (cpus->empty())
        return app::invalidInput(QStringLiteral("--%1: name at least one CPU").arg(name));
    return cpus;
}

app::Result<app::lab::LabSpec> parseSandbox(const QCommandLineParser& parser,
                                            const QStringList& command) {
    app::lab::LabSpec spec;
    spec.cliPath = cliPath();
    for (const QString& word : command)
        spec.command.push_back(word.toStdString());
    const auto mtu = parseCount(QStringLiteral("--mtu"), parser.value(QStringLiteral("mtu")),
                                app::kMinLabMtu, app::kMaxLabMtu);
    if (!mtu)
        return mtu.error();
    spec.mtu = int(*mtu);
    auto client = cpusOption(parser, QStringLiteral("client-cpus"));
    if (!client)
        return client.error();
    spec.clientCpus = *client;
    auto server = cpusOption(parser, QStringLiteral("server-cpus"));
    if (!server)
        return server.error();
    spec.serverCpus = *server;
    for (const QString& id :
         parser.value(QStringLiteral("modes")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto mode = app::lab::labModeFromId(id.trimmed());
        if (!mode)
            return app::invalidInput(
                QStringLiteral("--modes: unknown mode '%1' (see 'loadscope-cli "
                               "lab check')")
                    .arg(id));
        spec.modes.push_back(*mode);
    }
    const QString placement = parser.value(QStringLiteral("client-placement"));
    const auto clientPlacement = app::labClientPlacementFromId(placement);
    if (!clientPlacement)
        return app::invalidInput(
            QStringLiteral("--client-placement: unknown placement '%1': expected wire or "
                           "server-host")
                .arg(placement));
    spec.client = *clientPlacement;
    const QString kind = parser.value(QStringLiteral("server"));
    const auto serverKind = app::lab::labServerKindFromId(kind);
    if (!serverKind)
        return app::invalidInput(
            kind.isEmpty()
                ? QStringLiteral("--server: which server? http, echo, sink, nginx, apache, "
                                 "memcached, redis, udp-echo or udp-sink")
                : QStringLiteral("--server: unknown server '%1': expected http, echo, sink, nginx, "
                                 "apache, memcached, redis, udp-echo or udp-sink")
                      .arg(kind));
    spec.server.kind = *serverKind;
    for (const QString& pair : parser.values(QStringLiteral("server-opt"))) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        if (equals <= 0)
            return app::invalidInput(
                QStringLiteral("--server-opt '%1': expected KEY=VALUE").arg(pair));
        spec.server.options.emplace_back(pair.left(equals), pair.mid(equals + 1));
    }
    if (auto valid = app::lab::checkLabSpec(spec); !valid)
        return valid.error();
    return spec;
}

int runSandbox(const QStringList& arguments, const CliIo& io) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Builds a lab inside a new sandbox: a client namespace joined by a veth wire to a server\n"
        "host namespace, each requested mode on top, and the same server in each (one instance\n"
        "per mode, on the server CPUs). Then prints one JSON line describing the lab on stdout\n"
        "and runs COMMAND in the client namespace, or the server host's with\n"
        "--client-placement server-host (on the client CPUs, with LOADSCOPE_LAB_HOST_NETNS\n"
        "and LOADSCOPE_LAB_RANGE set). Everything is torn down when\n"
        "COMMAND exits; the exit status is COMMAND's, or 2 when the lab could not be built.\n"
        "\n"
        "Usage: loadscope-cli lab sandbox [options] --modes MODE[,MODE...] --server KIND -- "
        "COMMAND [ARGS...]"));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("mtu"), QStringLiteral("MTU of the wire (default 1500)."),
         QStringLiteral("N"), QStringLiteral("1500")},
        {QStringLiteral("client-cpus"),
         QStringLiteral("CPUs of the command (default: all but the last)."),
         QStringLiteral("LIST")},
        {QStringLiteral("server-cpus"),
         QStringLiteral("CPUs of the servers (default: the last one)."), QStringLiteral("LIST")},
        {QStringLiteral("modes"),
         QStringLiteral("Modes to build: host, container-host-network, container-nat,\n"
                        "userland-proxy, linux-bridge, ovs-bridge, macvlan, ipvlan,\n"
                        "rootless-nat, cluster-ip, pod-bridge, node-port, overlay-vxlan,\n"
                        "sidecar (short: host-network, nat, bridge, ovs)."),
         QStringLiteral("LIST")},
        {QStringLiteral("client-placement"),
         QStringLiteral("Where COMMAND, the load's client, runs: wire (the client\n"
                        "namespace, across the wire; the default) or server-host (the\n"
                        "server host's namespace: 127.0.0.1, published ports through\n"
                        "docker-proxy or the embedded relay, the host's own address DNATed\n"
                        "back; not overlay-vxlan, macvlan, ipvlan, ovs-bridge)."),
         QStringLiteral("PLACEMENT"), QStringLiteral("wire")},
        {QStringLiteral("server"),
         QStringLiteral("http, echo, sink, udp-echo, udp-sink (embedded), nginx, apache,\n"
                        "memcached or redis."),
         QStringLiteral("KIND")},
        {QStringLiteral("server-opt"),
         QStringLiteral("A server option, a whole number; server options: %1.")
             .arg(serverOptionList()),
         QStringLiteral("KEY=VALUE")},
    });
    // Everything after "--" is the command, whatever it looks like.
    const qsizetype separator = arguments.indexOf(QStringLiteral("--"));
    const QStringList own = separator < 0 ? arguments : arguments.mid(0, separator);
    const QStringList command = separator < 0 ? QStringList() : arguments.mid(separator + 1);
    if (const auto exit = parseOrExit(parser, own, io))
        return *exit;
    if (!parser.positionalArguments().isEmpty()) {
        printError(io, arguments.constFirst(),
                   QStringLiteral("unexpected argument '%1' (the command goes after --)")
                       .arg(parser.positionalArguments()[0]));
        return ExitUsage;
    }
    auto spec = parseSandbox(parser, command);
    if (!spec) {
        printError(io, arguments.constFirst(), spec.error().message);
        return ExitUsage;
    }
    std::fflush(io.out);
    auto status = app::lab::runLab(*spec);
    if (!status) {
        printError(io, arguments.constFirst(), status.error().message);
        return ExitUsage;
    }
    return *status;
}

} // namespace

namespace {

using Subcommand = int (*)(const QStringList&, const CliIo&);

const std::vector<std::pair<QString, Subcommand>>& subcommandTable() {
    static const std::vector<std::pair<QString, Subcommand>> table{
        {QStringLiteral("check"), runCheck},
        {QStringLiteral("sandbox"), runSandbox},
        {QStringLiteral("agent"), runLabAgentCommand},
    };
    return table;
}

} // namespace

QStringList labSubcommands() {
    QStringList names;
    for (const auto& [name, run] : subcommandTable())
        names << name;
    return names;
}

int runLabCommand(const QStringList& arguments, const CliIo& io) {
    const QString command = arguments.value(0);
    const QString sub = arguments.value(1);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        std::fputs(kLabUsage, io.out);
        return ExitOk;
    }
    QStringList rest = arguments.mid(1);
    if (!rest.isEmpty())
        rest[0] = command + QLatin1Char(' ') + sub;
    for (const auto& [name, run] : subcommandTable()) {
        if (sub == name)
            return run(rest, io);
    }
    printError(
        io, command,
        sub.isEmpty()
            ? QStringLiteral("which subcommand? check, sandbox or agent (see --help)")
            : QStringLiteral("unknown subcommand '%1': expected check, sandbox or agent").arg(sub));
    return ExitUsage;
}

} // namespace loadscope::cli
