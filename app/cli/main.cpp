// loadscope-cli: the thin entry point; the commands live in loadscope_cli.
#include "app/cli/commands.h"

#include <QCoreApplication>
#include <csignal>

namespace {

void brokenPipeIsAWriteError(int) {}

} // namespace

int main(int argc, char* argv[]) {
    // A standard output whose reader has gone (`loadscope-cli report s | true`)
    // is a write error each command reports in one line with exit status 1,
    // not a SIGPIPE that ends the process without a word. Caught rather than
    // ignored: an ignored signal survives exec, a caught one is back at its
    // default in every child (ssh, the lab's servers, a sandbox's command).
    // The engine's sockets send with MSG_NOSIGNAL, its threads block SIGPIPE
    // (engine/broken_pipe.h): the load behaves the same either way.
    struct sigaction pipe {};
    pipe.sa_handler = brokenPipeIsAWriteError;
    sigemptyset(&pipe.sa_mask);
    pipe.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &pipe, nullptr);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("loadscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADSCOPE_VERSION));
    QStringList arguments = QCoreApplication::arguments();
    arguments.removeFirst();
    return loadscope::cli::runCli(arguments);
}
