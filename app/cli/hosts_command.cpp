// loadscope-cli hosts check: each host reached over ssh as a sweep would
// reach it, and what it says (app/remote/host_check.h).
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/host_options.h"
#include "app/common/json_bytes.h"
#include "app/remote/host_check.h"
#include "app/session/session_file.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <vector>

namespace loadscope::cli {

namespace {

int runHostsCheck(const QStringList& arguments, const CliIo& io) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Reaches each host with ssh (BatchMode: keys from your agent or ssh config, never a\n"
        "prompt), runs Loadscope's agent there and says, one line a host: reachable,\n"
        "authenticated, its Loadscope version, CPUs, kernel, its clock's offset from this\n"
        "machine's, and what the lab can build there. Exit status 0 when every host is\n"
        "usable, 3 otherwise."));
    parser.addHelpOption();
    parser.addPositionalArgument(
        QStringLiteral("HOSTS"),
        QStringLiteral("A .loadscope session (its hosts), or SSH destinations: a Host of your "
                       "ssh config or [user@]host[:port]."));
    addHostOptions(parser);
    parser.addOption({QStringLiteral("no-lab"),
                      QStringLiteral("Do not run `lab check` on each host (it takes seconds).")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("One JSON object on stdout.")});
    if (const auto exit = parseOrExit(parser, arguments, io))
        return *exit;
    auto options = readHostOptions(parser);
    if (!options) {
        printError(io, command, options.error().message);
        return ExitUsage;
    }
    std::vector<app::Host> hosts;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() == 1 && QFileInfo(positional.first()).isFile()) {
        auto session = app::openSession(positional.first());
        if (!session) {
            printError(io, command, session.error().toString());
            return ExitUsage;
        }
        hosts = session->hosts;
        if (hosts.empty()) {
            printError(io, command, QStringLiteral("%1 names no hosts").arg(positional.first()));
            return ExitUsage;
        }
    } else {
        auto named = hostsOfDestinations(positional, *options);
        if (!named) {
            printError(io, command, named.error().message);
            return ExitUsage;
        }
        hosts = std::move(*named);
    }
    if (hosts.empty()) {
        printError(io, command, QStringLiteral("which hosts? (see --help)"));
        return ExitUsage;
    }
    // Side by side: each check is a coroutine that starts its ssh at once.
    const bool withLab = !parser.isSet(QStringLiteral("no-lab"));
    std::vector<QCoro::Task<app::HostCheck>> running;
    for (const app::Host& host : hosts)
        running.push_back(app::checkHostOverSsh(
            host, options->ssh, withLab, options->maxClockOffsetMs, std::chrono::seconds(20)));
    std::vector<app::HostCheck> checks(hosts.size());
    size_t done = 0;
    QEventLoop loop;
    for (size_t i = 0; i < running.size(); ++i) {
        QCoro::connect(std::move(running[i]), &loop, [&, i](app::HostCheck check) {
            checks[i] = std::move(check);
            if (++done == checks.size())
                loop.quit();
        });
    }
    if (done < checks.size())
        loop.exec();
    bool allOk = true;
    QJsonArray json;
    for (const app::HostCheck& check : checks) {
        allOk = allOk && check.ok();
        json.append(app::hostCheckJson(check));
        if (!parser.isSet(QStringLiteral("json")))
            std::fprintf(io.out, "%s\n", qPrintable(app::hostCheckLine(check)));
    }
    if (parser.isSet(QStringLiteral("json")))
        std::fprintf(
            io.out, "%s\n",
            app::jsonBytes(QJsonObject{{QStringLiteral("hosts"), json}}, QJsonDocument::Compact)
                .constData());
    std::fflush(io.out);
    return allOk ? ExitOk : ExitUnreachable;
}

} // namespace

int runHostsCommand(const QStringList& arguments, const CliIo& io) {
    const QString sub = arguments.value(1);
    if (sub == QLatin1String("check"))
        return runHostsCheck(
            QStringList{arguments.value(0) + QStringLiteral(" check")} + arguments.mid(2), io);
    const bool help = sub == QLatin1String("--help") || sub == QLatin1String("-h");
    std::fputs("Usage: loadscope-cli hosts check [options] SESSION|DESTINATION...\n"
               "The hosts a session loads from, measures or builds its lab on, reached over\n"
               "ssh; see `loadscope-cli hosts check --help`.\n",
               help ? io.out : io.err);
    return help ? ExitOk : ExitUsage;
}

} // namespace loadscope::cli
