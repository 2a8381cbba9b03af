// loadscope-cli: the thin entry point; the commands live in loadscope_cli.
#include "app/cli/commands.h"

#include <QCoreApplication>

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("loadscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADSCOPE_VERSION));
    QStringList arguments = QCoreApplication::arguments();
    arguments.removeFirst();
    return loadscope::cli::runCli(arguments);
}
