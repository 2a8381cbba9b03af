// `report` and `export`: read a saved session and print or write what the
// session library derives from it. Parsing only; the text and files come
// from app/session.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/session/folded_export.h"
#include "app/session/noise_advice.h"
#include "app/session/percentile_export.h"
#include "app/session/session_file.h"

#include <QCommandLineParser>

namespace loadscope::cli {

namespace {

QString sessionArgumentHelp() {
    return QStringLiteral("A .loadscope file, or the name of an example session (%1).")
        .arg(app::exampleSessionNames().join(QStringLiteral(", ")));
}

// The one positional SESSION argument, opened. Every refusal is a usage
// error (exit status 2): a missing or second argument, a file that does not open.
app::Result<app::Session> openSessionArgument(const QCommandLineParser& parser) {
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return app::invalidInput(positional.isEmpty()
                                     ? QStringLiteral("which session? (see --help)")
                                     : QStringLiteral("expects one session, got %1 (see --help)")
                                           .arg(positional.size()));
    return app::openSession(positional.first());
}

QCommandLineOption poolSourcesOption() {
    return QCommandLineOption(
        QStringLiteral("pool-sources"),
        QStringLiteral("Average a target's results of different tools and load models (ab, "
                       "wrk2's fixed rate, Loadscope's closed loop) as repetitions of one "
                       "figure; by default each is its own series."));
}

app::ComparisonOptions comparisonOptions(const QCommandLineParser& parser) {
    return app::ComparisonOptions{parser.isSet(QStringLiteral("pool-sources"))};
}

} // namespace

int runReportCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Prints a saved session's comparison: per concurrency level the modes "
                       "side by side (mean ±95% confidence interval over the runs, change "
                       "against the baseline), then one line per mode saying whether the "
                       "change exceeds run-to-run noise: significant when its 95% interval "
                       "excludes 0%. The change is a ratio computed on the log scale: paired "
                       "by repetition where the runs were interleaved (the geometric mean of "
                       "the per-repetition ratios, with a t interval of the log ratios), else "
                       "the ratio of the geometric means with Welch's interval of the log "
                       "figures; each line names the test it used."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SESSION"), sessionArgumentHelp());
    parser.addOption(poolSourcesOption());
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;

    const app::Result<app::Session> session = openSessionArgument(parser);
    if (!session) {
        printError(command, session.error().toString());
        return ExitUsage;
    }
    printSetAside(CliIo{}, command, *session);
    const QByteArray text =
        (app::comparisonReport(*session, app::Comparison(*session, comparisonOptions(parser))) +
         app::tighteningAdvice(*session))
            .toUtf8();
    if (auto written = writeOutput(QStringLiteral("-"), text, CliIo{}); !written) {
        printError(command, written.error().toString());
        return ExitInternal;
    }
    return ExitOk;
}

int runExportCommand(const QStringList& arguments) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Writes a saved session's exports: the results CSV (one row per target, "
                       "concurrency and repetition), the summary CSV (one row per target, "
                       "concurrency and metric, with mean, confidence interval and change "
                       "against the baseline), latency percentile distributions in "
                       "HdrHistogram's text layout (one .hgrm file per target and level), and "
                       "the CPU profiles' call chains (one .folded file per target and level)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SESSION"), sessionArgumentHelp());
    const QCommandLineOption csvOption(QStringLiteral("csv"),
                                       QStringLiteral("Results CSV to FILE ('-': stdout)."),
                                       QStringLiteral("FILE"));
    const QCommandLineOption summaryOption(QStringLiteral("summary-csv"),
                                           QStringLiteral("Summary CSV to FILE ('-': stdout)."),
                                           QStringLiteral("FILE"));
    const QCommandLineOption percentilesOption(
        QStringLiteral("percentiles"),
        QStringLiteral("Percentile distribution files into DIR (created when missing)."),
        QStringLiteral("DIR"));
    const QCommandLineOption foldedOption(
        QStringLiteral("folded"),
        QStringLiteral("The CPU profiles' call chains into DIR (created when missing), one "
                       ".folded file per target and level, as FlameGraph and speedscope read "
                       "them."),
        QStringLiteral("DIR"));
    parser.addOption(csvOption);
    parser.addOption(summaryOption);
    parser.addOption(percentilesOption);
    parser.addOption(foldedOption);
    parser.addOption(poolSourcesOption());
    if (const auto exit = parseOrExit(parser, arguments))
        return *exit;

    if (!parser.isSet(csvOption) && !parser.isSet(summaryOption) &&
        !parser.isSet(percentilesOption) && !parser.isSet(foldedOption)) {
        printError(command, QStringLiteral("nothing to export: give --csv, --summary-csv, "
                                           "--percentiles or --folded (see --help)"));
        return ExitUsage;
    }
    if (parser.value(csvOption) == u"-" && parser.value(summaryOption) == u"-") {
        printError(command, QStringLiteral("only one of --csv and --summary-csv can go to stdout"));
        return ExitUsage;
    }
    const app::Result<app::Session> session = openSessionArgument(parser);
    if (!session) {
        printError(command, session.error().toString());
        return ExitUsage;
    }
    printSetAside(CliIo{}, command, *session);

    if (parser.isSet(csvOption)) {
        if (auto written = writeOutput(parser.value(csvOption), app::resultsCsv(*session), CliIo{});
            !written) {
            printError(command, written.error().toString());
            return ExitInternal;
        }
    }
    if (parser.isSet(summaryOption)) {
        if (auto written = writeOutput(
                parser.value(summaryOption),
                app::summaryCsv(*session, app::Comparison(*session, comparisonOptions(parser))),
                CliIo{});
            !written) {
            printError(command, written.error().toString());
            return ExitInternal;
        }
    }
    QString error;
    if (parser.isSet(percentilesOption)) {
        const auto written =
            app::writePercentileDistributions(*session, parser.value(percentilesOption));
        if (!written) {
            printError(command, written.error().toString());
            return ExitInternal;
        }
        if (written->isEmpty())
            printError(command, QStringLiteral("no measured latency histograms in the session: "
                                               "no percentile files written"));
    }
    if (parser.isSet(foldedOption)) {
        const auto written = app::writeFoldedStacks(*session, parser.value(foldedOption));
        if (!written) {
            printError(command, written.error().toString());
            return ExitInternal;
        }
        if (written->isEmpty())
            printError(command, QStringLiteral("no CPU profile with call chains in the session "
                                               "(the plan's profile takes one): no folded files "
                                               "written"));
    }
    return ExitOk;
}

} // namespace loadscope::cli
