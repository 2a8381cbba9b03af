// `import`: adds saved ab, wrk, wrk2, h2load, memtier_benchmark and netperf outputs to
// a target of a session file. Parsing only; recognising and adding is app/import.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/import/session_importer.h"
#include "app/session/session_file.h"

#include <QCommandLineParser>
#include <QFileInfo>

namespace loadscope::cli {

int runImportCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Adds saved outputs of ab (2.0.40, 2.3), wrk, wrk2, h2load, memtier_benchmark (standard "
        "output or --json-out-file) and netperf (TCP_RR, TCP_CRR, TCP_STREAM; classic, -o or -k) "
        "to a target of a session, so they chart beside new runs. Each report becomes one "
        "result at its concurrency, with the next free repetition, holding the numbers as "
        "printed. "
        "Nothing is added when an output is not recognised, is cut off, or was already "
        "imported into the target."));
    parser.addHelpOption();
    const QCommandLineOption sessionOption(
        QStringLiteral("session"),
        QStringLiteral("The .loadscope file to add to (created when it does not exist)."),
        QStringLiteral("FILE"));
    const QCommandLineOption targetOption(
        QStringLiteral("target"),
        QStringLiteral("The target the results belong to, by name (created when missing)."),
        QStringLiteral("NAME"));
    const QCommandLineOption modeOption(
        QStringLiteral("mode"),
        QStringLiteral("Deployment mode of a new target: host, container-host-network, "
                       "container-nat, linux-bridge, ovs-bridge, macvlan, userland-proxy, or "
                       "your own words (default: host)."),
        QStringLiteral("MODE"));
    parser.addOption(sessionOption);
    parser.addOption(targetOption);
    parser.addOption(modeOption);
    parser.addPositionalArgument(QStringLiteral("OUTPUT"),
                                 QStringLiteral("Saved tool outputs ('-': standard input)."),
                                 QStringLiteral("OUTPUT..."));
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;

    const QString sessionPath = parser.value(sessionOption);
    const QStringList outputs = parser.positionalArguments();
    if (sessionPath.isEmpty() || parser.value(targetOption).trimmed().isEmpty()) {
        printError(command, QStringLiteral("needs --session FILE and --target NAME (see --help)"));
        return ExitUsage;
    }
    if (outputs.isEmpty()) {
        printError(command, QStringLiteral("which outputs? (see --help)"));
        return ExitUsage;
    }

    QString error;
    app::Session session;
    if (QFileInfo::exists(sessionPath)) {
        app::Result<app::Session> loaded = app::loadSessionFile(sessionPath);
        if (!loaded) {
            printError(command, loaded.error().toString());
            return ExitUsage;
        }
        session = std::move(*loaded);
        printSetAside(CliIo{}, command, session);
    } else {
        session.name = QFileInfo(sessionPath).completeBaseName();
    }

    const auto files = app::readImportFiles(outputs);
    if (!files) {
        printError(command, files.error().toString());
        return ExitUsage;
    }
    const QString targetName = parser.value(targetOption).trimmed();
    const auto result =
        app::importIntoSession(session, targetName, parser.value(modeOption), *files);
    if (!result) {
        printError(command, result.error().toString());
        return ExitUsage;
    }
    const app::SessionImport& imported = *result;
    if (const auto saved = app::saveSessionFile(session, sessionPath); !saved) {
        printError(command, saved.error().toString());
        return ExitInternal;
    }

    QString text;
    for (const app::ImportedReport& report : imported.reports) {
        text += QStringLiteral("%1:%2: %3 -> repetition %4\n")
                    .arg(report.result.source.file)
                    .arg(report.firstLine)
                    .arg(report.description())
                    .arg(report.result.repetition);
    }
    const app::Target* target = session.findTarget(imported.targetId);
    text += QStringLiteral("imported %1 report%2 into %3 target '%4' (%5, %6) of %7\n")
                .arg(imported.reports.size())
                .arg(imported.reports.size() == 1 ? QString() : QStringLiteral("s"))
                .arg(imported.createdTarget ? QStringLiteral("new") : QStringLiteral("existing"))
                .arg(targetName, target->modeLabel(), app::targetProtocolId(target->protocol),
                     sessionPath);
    if (auto written = writeOutput(QStringLiteral("-"), text.toUtf8(), CliIo{}); !written) {
        printError(command, written.error().toString());
        return ExitInternal;
    }
    return ExitOk;
}

} // namespace loadscope::cli
