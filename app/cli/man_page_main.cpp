// loadscope-man-page cli|window OUTPUT: writes loadscope-cli(1) or loadscope(1)
// from the help the parsers print (man_page.h). Run by the build; every help it
// asks for must succeed, so a command whose --help fails fails the build.
#include "app/cli/commands.h"
#include "app/cli/man_page.h"
#include "app/common/atomic_file_writer.h"
#ifdef LOADSCOPE_MAN_PAGE_WINDOW
#include "app/gui/window_options.h"
#endif

#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>
#include <optional>
#include <unistd.h>

namespace {

using loadscope::cli::runCli;

// What `loadscope-cli ARGUMENTS` prints on stdout, run in this process: some
// commands print their help on stdout itself, not on the stream given them.
std::optional<QString> cliOutput(const QStringList& arguments) {
    std::fflush(stdout);
    FILE* capture = std::tmpfile();
    const int saved = ::dup(STDOUT_FILENO);
    if (!capture || saved < 0 || ::dup2(::fileno(capture), STDOUT_FILENO) < 0)
        return std::nullopt;
    const int status = runCli(arguments, loadscope::cli::CliIo{stdout, stderr});
    std::fflush(stdout);
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
    QByteArray text;
    std::rewind(capture);
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, capture)) > 0;)
        text.append(buffer, qsizetype(got));
    std::fclose(capture);
    if (status != 0) {
        std::fprintf(stderr, "loadscope-man-page: 'loadscope-cli %s' exited %d\n",
                     qPrintable(arguments.join(QLatin1Char(' '))), status);
        return std::nullopt;
    }
    return QString::fromUtf8(text);
}

std::optional<loadscope::cli::ManPageSource> cliSource() {
    loadscope::cli::ManPageSource source;
    source.program = QStringLiteral("loadscope-cli");
    source.version = QStringLiteral(LOADSCOPE_VERSION);
    source.seeAlso = {QStringLiteral("loadscope")};
    const auto help = cliOutput({QStringLiteral("--help")});
    if (!help)
        return std::nullopt;
    source.help = *help;
    const QString helpFlag = QStringLiteral("--help");
    for (const QString& command : loadscope::cli::commandNames()) {
        const auto commandHelp = cliOutput({command, helpFlag});
        if (!commandHelp)
            return std::nullopt;
        source.commandHelps << *commandHelp;
        for (const QString& sub : loadscope::cli::subcommandNames(command)) {
            const auto subHelp = cliOutput({command, sub, helpFlag});
            if (!subHelp)
                return std::nullopt;
            source.commandHelps << *subHelp;
        }
    }
    return source;
}

#ifdef LOADSCOPE_MAN_PAGE_WINDOW
loadscope::cli::ManPageSource windowSource() {
    QCommandLineParser parser;
    loadscope::app::addWindowOptions(parser);
    QString help = parser.helpText();
    // Qt's usage line names this program as it was started.
    const qsizetype lineEnd = help.indexOf(QLatin1Char('\n'));
    const QString program = QCoreApplication::arguments().value(0);
    if (const qsizetype at = help.indexOf(program); at >= 0 && at < lineEnd)
        help.replace(at, program.size(), QStringLiteral("loadscope"));
    loadscope::cli::ManPageSource source;
    source.program = QStringLiteral("loadscope");
    source.version = QStringLiteral(LOADSCOPE_VERSION);
    source.help = help;
    source.seeAlso = {QStringLiteral("loadscope-cli")};
    return source;
}
#endif

} // namespace

int main(int argc, char* argv[]) {
    QCoreApplication application(argc, argv);
    const QStringList arguments = QCoreApplication::arguments().mid(1);
    const QString which = arguments.value(0);
    bool known = which == QLatin1String("cli");
#ifdef LOADSCOPE_MAN_PAGE_WINDOW
    known = known || which == QLatin1String("window");
#endif
    if (arguments.size() != 2 || !known) {
        std::fprintf(stderr, "usage: loadscope-man-page cli|window OUTPUT\n");
        return 2;
    }
    std::optional<loadscope::cli::ManPageSource> source;
    if (which == QLatin1String("cli"))
        source = cliSource();
#ifdef LOADSCOPE_MAN_PAGE_WINDOW
    else
        source = windowSource();
#endif
    if (!source)
        return 1;
    const auto written = loadscope::app::writeFileAtomically(
        arguments.at(1), loadscope::cli::manPage(*source).toUtf8());
    if (!written) {
        std::fprintf(stderr, "loadscope-man-page: %s\n", qPrintable(written.error().message));
        return 1;
    }
    return 0;
}
