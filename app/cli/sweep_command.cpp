// loadscope-cli sweep: runs a session's sweep headless with the same runner
// as the window, saving after every point, then prints the comparison.
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/host_options.h"
#include "app/cli/run_options.h"
#include "app/cli/stop_signals.h"
#include "app/cli/sweep_progress_line.h"
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/session/noise_advice.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/session/session_lock.h"
#include "app/sweep/sweep_runner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <memory>

namespace loadscope::cli {

namespace {

const char* const kDescription =
    "Runs the sweep of a session headless: every target at every concurrency level of the plan, "
    "as many repetitions as it asks, interleaved as the plan orders. Each target is probed with "
    "one request first, so that a typo fails in seconds. A progress line goes to stderr; after "
    "every point the session is saved (atomically) to --out, by default the session file itself, "
    "so an interrupted sweep loses at most the point in progress. At the end the comparison is "
    "printed and the CSV files written.\n"
    "\n"
    "A session that already holds results for some of the plan's points is refused unless one "
    "of --resume (run only the missing points; with --out naming an existing file, that file is "
    "continued) or --fresh (drop those results and measure every point again) is given. An "
    "existing --out file other than SESSION is never overwritten without --resume or --fresh.\n"
    "\n"
    "A capacity plan (levelKind \"capacity\") runs one search per target and repetition for the "
    "highest fixed rate that meets its latency objective; a search cut short goes on from its "
    "last step with --resume.\n"
    "\n"
    "--precision X repeats until every target's ratio to the baseline is known within +/-X % "
    "(95 % interval; paired by repetition): after a level's repetitions (the least), rounds of "
    "every target are added until it is, at most --max-repetitions in all; targets it could not "
    "pin down are named with their spread.\n"
    "\n"
    "SIGINT or SIGTERM cancels: the point in progress is dropped, finished points stay saved, "
    "and the exit status is 130 for SIGINT and 143 for SIGTERM. Exit status 3: a target could "
    "not be reached.";

struct SweepArguments {
    QString sessionArgument;
    QString outPath;
    QString csvPath;
    QString summaryCsvPath;
    bool resume = false;
    bool fresh = false;
    bool probe = true;
    bool quiet = false;
    std::optional<double> precisionPercent; // --precision: overrides the plan's
    std::optional<int> maxRepetitions;      // --max-repetitions
    double idleCheckSeconds = 2;
    std::optional<double> noiseThresholdPercent;
    HostOptions hosts; // --ssh-config, --max-clock-offset
};

bool samePath(const QString& a, const QString& b) {
    return QFileInfo(a).absoluteFilePath() == QFileInfo(b).absoluteFilePath();
}

// Results of the session that fill a point of its plan.
int resultsInPlan(const app::Session& session) {
    return int(app::sweepPoints(session).size() - app::missingPoints(session).size());
}

void dropPlanResults(app::Session& session) {
    if (session.plan.levelKind == app::SweepLevelKind::Capacity) {
        // A search's points are its steps, at rates of its own choosing.
        const int connections = session.plan.rateConnections;
        const int repetitions = session.plan.repetitions;
        std::erase_if(session.results, [&](const app::PointResult& result) {
            return result.capacityStep > 0 && result.concurrency == connections &&
                   result.repetition < repetitions;
        });
        return;
    }
    const std::vector<app::SweepPoint> points = app::sweepPoints(session);
    // With a precision, the rounds a sweep added beyond the least are the plan's too.
    const bool rounds = session.plan.precisionPercent > 0;
    std::erase_if(session.results, [&](const app::PointResult& result) {
        return std::any_of(points.begin(), points.end(), [&](const app::SweepPoint& point) {
            return point.targetId == result.targetId && point.concurrency == result.concurrency &&
                   point.rate == result.levelRate() &&
                   (point.repetition == result.repetition ||
                    (rounds && result.repetition >= session.plan.repetitions));
        });
    });
}

// What a sweep starts from: the session, the file it is saved to, the lock
// held on that file, and whether the file must be written before the first
// point (it is not the file the session was read from).
struct StartingSession {
    app::Session session;
    QString outPath;
    std::shared_ptr<const app::SessionLock> lock;
    bool saveFirst = false;
};

// The session to run and the file it is saved to, after the rules of
// --resume, --fresh and --out; the reason of a refusal (exit status 2).
// Nothing is written here: a refused sweep leaves every file as it was.
app::Result<StartingSession> startingSession(const SweepArguments& args) {
    const bool isFile = QFileInfo(args.sessionArgument).isFile();
    QString out = args.outPath;
    if (out.isEmpty()) {
        // An example lives in the resources: its results go next to the user.
        out = isFile ? args.sessionArgument
                     : QFileInfo(args.sessionArgument).completeBaseName() + QLatin1Char('.') +
                           app::kSessionFileSuffix;
    }
    const bool outExists = QFileInfo::exists(out);
    const bool outIsInput = isFile && samePath(out, args.sessionArgument);
    const bool resuming = args.resume && outExists && !outIsInput;
    if (!resuming && outExists && !outIsInput && !args.fresh)
        return app::invalidInput(QStringLiteral("%1 exists: --resume continues it, --fresh "
                                                "replaces it, or give another --out")
                                     .arg(out));
    // Taken before the file is read, so that what is read is what the other
    // sweep, if any, had finished saving.
    auto lock = app::SessionLock::acquire(out);
    if (!lock)
        return lock.error();
    app::Result<app::Session> opened =
        resuming ? app::loadSessionFile(out) : app::openSession(args.sessionArgument);
    if (!opened)
        return opened.error();
    std::optional<app::Session> session = std::move(*opened);
    if (args.precisionPercent)
        session->plan.precisionPercent = *args.precisionPercent;
    if (args.maxRepetitions)
        session->plan.maxRepetitions = *args.maxRepetitions;
    const int done = resultsInPlan(*session);
    if (args.fresh) {
        dropPlanResults(*session);
    } else if (done > 0 && !args.resume) {
        return app::invalidInput(
            QStringLiteral("the session already has results for %1 of its %2 points: "
                           "--resume runs the %3 missing ones, --fresh measures all again")
                .arg(done)
                .arg(app::sweepPoints(*session).size())
                .arg(app::missingPoints(*session).size()));
    }
    if (session->targets.empty())
        return app::invalidInput(QStringLiteral("the session has no targets"));
    if (auto plan = app::validateSweepPlan(session->plan); !plan)
        return app::invalidInput(QStringLiteral("sweep plan: %1").arg(plan.error().message));
    // The file read is saved again only once a point has something new for
    // it (the runner saves after each point), so a sweep that ends before
    // its first point leaves it byte for byte as it was.
    const bool readFromOut = resuming || outIsInput;
    return StartingSession{std::move(*session), out, std::move(*lock), !readFromOut};
}

void addSweepOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QString::fromUtf8(kDescription));
    parser.addHelpOption();
    parser.addPositionalArgument(
        QStringLiteral("SESSION"),
        QStringLiteral("A .loadscope file, or the name of an example session (%1).")
            .arg(app::exampleSessionNames().join(QStringLiteral(", "))));
    parser.addOptions({
        {QStringLiteral("out"),
         QStringLiteral("Save the session with its results to FILE (default: SESSION itself; "
                        "NAME.loadscope in the current directory for an example)."),
         QStringLiteral("FILE")},
        {QStringLiteral("csv"), QStringLiteral("Results CSV to FILE at the end ('-': stdout)."),
         QStringLiteral("FILE")},
        {QStringLiteral("summary-csv"),
         QStringLiteral("Summary CSV to FILE at the end ('-': stdout)."), QStringLiteral("FILE")},
        {QStringLiteral("resume"), QStringLiteral("Run only the points without a result.")},
        {QStringLiteral("fresh"),
         QStringLiteral("Drop the session's results of the plan's points and run them all.")},
        {QStringLiteral("no-probe"),
         QStringLiteral("Skip the one-request probe of each target before the sweep.")},
        {QStringLiteral("precision"),
         QStringLiteral("Repeat until every target's ratio to the baseline is known within "
                        "+/-PERCENT (95%); 0: exactly the plan's repetitions."),
         QStringLiteral("PERCENT")},
        {QStringLiteral("max-repetitions"),
         QStringLiteral("With --precision: at most N repetitions per point (default: the "
                        "plan's, 10)."),
         QStringLiteral("N")},
        {{QStringLiteral("q"), QStringLiteral("quiet")},
         QStringLiteral("No progress line, only errors and the comparison.")},
        {QStringLiteral("idle-check"),
         QStringLiteral("Before the first point, watch the idle machine this long and say how "
                        "busy it already is (default 2; 0 or -q: no check)."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("noise-threshold"),
         QStringLiteral("Mark points noisy when other load exceeds this share of the machine "
                        "(percent; default: the plan's, 10). Saved in the plan."),
         QStringLiteral("PERCENT")},
    });
    addSshOptions(parser);
}

app::Result<SweepArguments> readSweepArguments(const QCommandLineParser& parser) {
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return app::invalidInput(
            positional.isEmpty()
                ? QStringLiteral("which session? (see --help)")
                : QStringLiteral("expects one session, got %1").arg(positional.size()));
    SweepArguments args;
    args.sessionArgument = positional.first();
    args.outPath = parser.value(QStringLiteral("out"));
    args.csvPath = parser.value(QStringLiteral("csv"));
    args.summaryCsvPath = parser.value(QStringLiteral("summary-csv"));
    args.resume = parser.isSet(QStringLiteral("resume"));
    args.fresh = parser.isSet(QStringLiteral("fresh"));
    args.probe = !parser.isSet(QStringLiteral("no-probe"));
    args.quiet = parser.isSet(QStringLiteral("quiet"));
    if (parser.isSet(QStringLiteral("precision"))) {
        bool ok = false;
        const double percent = parser.value(QStringLiteral("precision")).toDouble(&ok);
        if (!ok)
            return app::invalidInput(QStringLiteral("--precision expects a percentage, got '%1'")
                                         .arg(parser.value(QStringLiteral("precision"))));
        args.precisionPercent = percent;
    }
    if (parser.isSet(QStringLiteral("max-repetitions"))) {
        bool ok = false;
        const int most = parser.value(QStringLiteral("max-repetitions")).toInt(&ok);
        if (!ok)
            return app::invalidInput(QStringLiteral("--max-repetitions expects a count, got '%1'")
                                         .arg(parser.value(QStringLiteral("max-repetitions"))));
        args.maxRepetitions = most;
    }
    if (parser.isSet(QStringLiteral("idle-check"))) {
        const auto seconds = parseSeconds(QStringLiteral("--idle-check"),
                                          parser.value(QStringLiteral("idle-check")));
        if (!seconds)
            return seconds.error();
        if (*seconds > 60)
            return app::invalidInput(QStringLiteral("--idle-check is at most 60 seconds"));
        args.idleCheckSeconds = *seconds;
    }
    if (args.quiet)
        args.idleCheckSeconds = 0; // nothing would print what it found
    if (parser.isSet(QStringLiteral("noise-threshold"))) {
        const auto threshold = parseNoiseThreshold(parser.value(QStringLiteral("noise-threshold")));
        if (!threshold)
            return threshold.error();
        args.noiseThresholdPercent = *threshold;
    }
    auto hosts = readHostOptions(parser, false);
    if (!hosts)
        return hosts.error();
    args.hosts = *hosts;
    if (args.resume && args.fresh)
        return app::invalidInput(QStringLiteral("--resume and --fresh contradict each other"));
    if (args.csvPath == u"-" && args.summaryCsvPath == u"-")
        return app::invalidInput(
            QStringLiteral("only one of --csv and --summary-csv can go to stdout"));
    if ((args.csvPath == u"-" || args.summaryCsvPath == u"-") && args.outPath == u"-")
        return app::invalidInput(QStringLiteral("--out must be a file"));
    return args;
}

} // namespace

int runSweepCommand(const QStringList& arguments, const CliIo& io) {
    const QString command = arguments.value(0);
    QCommandLineParser parser;
    addSweepOptions(parser);
    if (const auto exit = parseOrExit(parser, arguments, io))
        return *exit;
    const auto args = readSweepArguments(parser);
    if (!args) {
        printError(io, command, args.error().message);
        return ExitUsage;
    }
    auto start = startingSession(*args);
    if (!start) {
        printError(io, command, start.error().toString());
        return exitCodeFor(start.error());
    }
    app::Session& session = start->session;
    if (args->noiseThresholdPercent)
        session.plan.noiseThresholdPercent = *args->noiseThresholdPercent;
    const QString& outPath = start->outPath;
    printSetAside(io, command, session);

    int maxLevel = 1;
    for (int level : session.plan.concurrencyLevels)
        maxLevel = std::max(maxLevel, level);
    if (session.plan.levelKind == app::SweepLevelKind::Rate)
        maxLevel = std::max(maxLevel, session.plan.rateConnections);
    if (auto limit = ensureFileLimit(uint64_t(maxLevel) + 64); !limit) {
        printError(io, command, limit.error().message);
        return ExitUsage;
    }

    app::SessionDocument document;
    document.reset(std::move(session), outPath);
    // A new --out file is written before the first point, so that it is whole
    // and complete with its plan even if the sweep is killed during that point.
    if (start->saveFirst) {
        if (const auto saved = document.save(); !saved) {
            printError(io, command, saved.error().toString());
            return ExitInternal;
        }
    }

    SweepProgressLine progress(document, args->quiet, io.err);
    app::SweepRunner runner(&document);
    runner.setProbeEnabled(args->probe);
    runner.setIdleCheckSeconds(args->idleCheckSeconds);
    runner.setSessionLock(start->lock);
    runner.setSshOptions(args->hosts.ssh);
    runner.setMaxClockOffsetMs(args->hosts.maxClockOffsetMs);
    QObject::connect(&runner, &app::SweepRunner::statusChanged, &runner,
                     [&](const QString& text) { progress.message(text); });
    QObject::connect(&runner, &app::SweepRunner::probeFinished, &runner,
                     [&](const QUuid& id, const app::ProbeResult& probe) {
                         const app::Target* target = document.session().findTarget(id);
                         if (probe.ok && target)
                             progress.message(QStringLiteral("%1: %2").arg(target->displayName(),
                                                                           probe.summary()));
                     });
    QObject::connect(
        &runner, &app::SweepRunner::pointStarted, &runner,
        [&](const app::SweepPoint& point, int count) { progress.start(point, count); });
    QObject::connect(&runner, &app::SweepRunner::progressAvailable, &runner,
                     [&](const app::SweepPoint&, std::shared_ptr<const engine::Progress> p) {
                         progress.update(*p);
                     });
    QObject::connect(
        &runner, &app::SweepRunner::pointFinished, &runner,
        [&](const app::SweepPoint&, const app::PointResult& result) { progress.finish(result); });
    QObject::connect(&runner, &app::SweepRunner::precisionFinished, &runner,
                     [&](int, bool reached, const QString& text) {
                         // Giving up is said even with --quiet: the verdicts depend on it.
                         if (reached)
                             progress.message(text);
                         else
                             std::fprintf(io.err, "%s\n", text.toUtf8().constData());
                     });
    bool saveFailed = false;
    QObject::connect(&runner, &app::SweepRunner::autosaveFailed, &runner,
                     [&](const QString& saveError) {
                         // Measuring on without keeping the numbers helps nobody.
                         printError(io, command, saveError);
                         saveFailed = true;
                         runner.cancel();
                     });
    app::SweepOutcome outcome;
    StopSignals stopSignals([&] {
        progress.message(
            QStringLiteral("cancelling: finished points stay saved in %1").arg(outPath));
        runner.cancel();
    });

    // Started from the event loop, so that a sweep with nothing to do, which
    // finishes without suspending, still finds exec() running to quit.
    QTimer::singleShot(0, &runner, [&] {
        QCoro::connect(runner.run(), &runner, [&](const app::SweepOutcome& finished) {
            outcome = finished;
            QCoreApplication::exit(0);
        });
    });
    QCoreApplication::exec();

    if (outcome.status == app::SweepOutcome::Status::Failed)
        printError(io, command, outcome.error);
    else if (outcome.pointsSkipped > 0 && !args->quiet)
        progress.message(QStringLiteral("%1 of %2 points were already done")
                             .arg(outcome.pointsSkipped)
                             .arg(outcome.pointCount));
    const app::Session& done = document.session();
    if (!done.results.empty()) {
        const app::Comparison comparison(done);
        const QByteArray report =
            (app::comparisonReport(done, comparison) + app::tighteningAdvice(done)).toUtf8();
        // A CSV on stdout must stay parseable: the table then goes to stderr.
        const bool csvOnStdout = args->csvPath == u"-" || args->summaryCsvPath == u"-";
        if (csvOnStdout)
            std::fputs(report.constData(), io.err);
        app::Result<void> written;
        if (!csvOnStdout)
            written = writeOutput(QStringLiteral("-"), report, io);
        if (written && !args->csvPath.isEmpty())
            written = writeOutput(args->csvPath, app::resultsCsv(done), io);
        if (written && !args->summaryCsvPath.isEmpty())
            written = writeOutput(args->summaryCsvPath, app::summaryCsv(done, comparison), io);
        if (!written) {
            printError(io, command, written.error().toString());
            return ExitInternal;
        }
    }
    if (saveFailed)
        return ExitInternal;
    switch (outcome.status) {
    case app::SweepOutcome::Status::Completed:
        return ExitOk;
    case app::SweepOutcome::Status::Cancelled:
        // As a load command's: what a shell reports for a command that signal ended.
        return stopSignals.firstSignal() != 0 ? exitCodeForSignal(stopSignals.firstSignal())
                                              : kExitInterrupted;
    case app::SweepOutcome::Status::Failed:
        break;
    }
    return outcome.unreachable ? ExitUnreachable : ExitUsage;
}

} // namespace loadscope::cli
