// loadscope-cli lab SUBCOMMAND: the deployment lab's commands.
#include "app/cli/commands.h"

namespace loadscope::cli {

int runLabCommand(const QStringList& arguments, const CliIo& io) {
    const QString sub = arguments.value(1);
    if (sub == QLatin1String("agent")) {
        QStringList rest = arguments.mid(1);
        rest[0] = arguments.at(0) + QLatin1Char(' ') + sub;
        return runLabAgentCommand(rest, io);
    }
    const bool help = sub == QLatin1String("--help") || sub == QLatin1String("-h");
    if (!help)
        std::fprintf(io.err, "%s: unknown subcommand '%s'\n", qPrintable(arguments.at(0)),
                     qPrintable(sub));
    std::fputs(
        "Usage: loadscope-cli lab agent    the load agent (agent protocol on stdin/stdout)\n",
        help ? io.out : io.err);
    return help ? ExitOk : ExitUsage;
}

} // namespace loadscope::cli
