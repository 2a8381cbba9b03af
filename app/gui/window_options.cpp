#include "app/gui/window_options.h"

#include "app/session/session_file.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace loadscope::app {

void addWindowOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QCoreApplication::translate(
        "main", "Compare how network servers perform under load across deployment modes.\n"
                "\n"
                "A session with lab targets starts loadscope-cli to build its lab: the one\n"
                "beside this program, else the first on PATH; the Run page says before Start\n"
                "when there is none."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("session"),
        QCoreApplication::translate("main", "A .loadscope file, or an example's name: %1.")
            .arg(exampleSessionNames().join(QStringLiteral(", "))),
        QStringLiteral("[session]"));
}

} // namespace loadscope::app
