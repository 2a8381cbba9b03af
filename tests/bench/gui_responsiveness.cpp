// Does the window stay responsive? Two measurements, printed, never asserted:
//
// 1. A c=1000 sweep against the embedded HTTP server (direct and through the
//    userland proxy, in process on ports the kernel picks) driven through the
//    Run page, offscreen. A 10 ms timer on the GUI thread records how late
//    each tick fires: its lag is the longest the event loop was busy. Stop is
//    pressed during the second point; the time until the sweep reports its
//    end is the Stop latency. Goals: p99 lag <= 50 ms, Stop < 1 s.
// 2. A session of 1000 results (with histograms) opened from its file into
//    the window (MainWindow::openSession, as File > Open) with the Compare page
//    shown: time to open, to rebuild every chart and the table, and to paint.
//    Goal: under a second in all. The window reads the file on a worker
//    thread and the Compare page builds its comparison on one; the same
//    10 ms probe records the GUI thread's stalls meanwhile, the five longest
//    with the phase they fell in. Goal: none over 50 ms. The copy of the
//    session each rebuild hands its worker is timed on its own. Then File >
//    Save of it (written on a worker): the GUI thread's longest stall, beside
//    the time the same write takes on one thread.
//
//   gui_responsiveness [--concurrency N] [--seconds S] [--results N] [--open-only]
//                      [--keep FILE] [--open FILE] [--read FILE]

#include "app/common/checked_file_reader.h"
#include "app/session/comparison.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/session/session_file_split.h"
#include "app/session/session_json.h"
#include "app/stats/latency_distribution.h"
#include "app/sweep/sweep_runner.h"
#include "engine/histogram.h"
#include "tests/bench/lag_probe.h"
#include "tests/ui/ui_test_servers.h"
#include "ui/compare/compare_page.h"
#include "ui/run/run_page.h"
#include "ui/shell/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoroSignal>
#include <QCoroTask>
#include <QCoroTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <sys/resource.h>
#include <utility>
#include <vector>

using namespace loadscope;
using namespace loadscope::bench;
using namespace std::chrono_literals;

namespace {

struct Options {
    int concurrency = 1000;
    double seconds = 4;
    int results = 1000;
    bool openOnly = false;
    QString keepPath;    // where the generated session is also saved
    QString sessionPath; // open this file instead of a generated session
};

// Client and server sockets of one process: 2 per connection, 4 through the proxy.
void raiseOpenFileLimit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

QCoro::Task<int> measureSweep(const Options& options) {
    raiseOpenFileLimit();
    const test::UiHttpServers servers;
    if (!servers.isRunning()) {
        std::fprintf(stderr, "gui_responsiveness: %s\n", qPrintable(servers.error()));
        co_return 1;
    }
    app::Session session = test::directVsProxy(servers);
    session.plan.concurrencyLevels = {options.concurrency};
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = options.seconds;
    session.plan.repetitions = 1;
    session.plan.threads = 0;
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.resize(1280, 800);
    page.show();

    // The machine's own noise: the same probe with nothing running.
    LagProbe idle(&page);
    idle.start();
    co_await QCoro::sleepFor(2s);
    idle.stop();

    LagProbe probe(&page);
    int snapshots = 0;
    std::vector<ProbeEvent> events;
    QObject::connect(&runner, &app::SweepRunner::progressAvailable, &page,
                     [&snapshots] { ++snapshots; });
    QObject::connect(&runner, &app::SweepRunner::statusChanged, &page, [&](const QString& status) {
        events.push_back({probe.nowMs(), status});
    });
    QObject::connect(
        &runner, &app::SweepRunner::pointStarted, &page, [&](const app::SweepPoint& point) {
            events.push_back(
                {probe.nowMs(), QStringLiteral("point %1 started").arg(point.index + 1)});
        });
    QObject::connect(
        &runner, &app::SweepRunner::pointFinished, &page, [&](const app::SweepPoint& point) {
            events.push_back(
                {probe.nowMs(), QStringLiteral("point %1 finished").arg(point.index + 1)});
        });
    probe.start();
    page.findChild<QPushButton*>(QStringLiteral("startButton"))->click();

    // Let the first point run whole and the second for half its time.
    for (int started = 0; started < 2;) {
        const auto point = co_await qCoro(&runner, &app::SweepRunner::pointStarted, 120s);
        if (!point) {
            std::fprintf(stderr, "gui_responsiveness: the sweep did not start its points\n");
            co_return 1;
        }
        started = std::get<0>(*point).index + 1;
    }
    co_await QCoro::sleepFor(std::chrono::milliseconds(int(options.seconds * 500)));
    QElapsedTimer stopClock;
    stopClock.start();
    page.findChild<QPushButton*>(QStringLiteral("stopButton"))->click();
    const auto ended = co_await qCoro(&runner, &app::SweepRunner::runningChanged, 30s);
    const double stopMs = double(stopClock.nsecsElapsed()) / 1e6;
    probe.stop();

    const auto& lags = probe.lagsMs();
    std::printf("c=%d sweep, 2 targets x %.1f s, Run page offscreen, %d snapshots charted\n",
                options.concurrency, options.seconds, snapshots);
    const auto& quiet = idle.lagsMs();
    std::printf("  idle lag before the sweep (%zu ticks): p50 %.1f ms  p99 %.1f ms  max %.1f ms\n",
                quiet.size(), percentile(quiet, 50), percentile(quiet, 99),
                quiet.empty() ? 0.0 : *std::max_element(quiet.begin(), quiet.end()));
    std::printf("  event-loop lag (10 ms probe, %zu ticks): p50 %.1f ms  p99 %.1f ms  max %.1f ms"
                "  (goal: p99 <= 50 ms)\n",
                lags.size(), percentile(lags, 50), percentile(lags, 99),
                lags.empty() ? 0.0 : *std::max_element(lags.begin(), lags.end()));
    printLargestLags(probe, events);
    if (!ended) {
        std::printf("  stop: the sweep did not end within 30 s\n");
        co_return 1;
    }
    const auto& results = document.session().results;
    // A sweep that was cancelled keeps fewer points than its plan has.
    std::printf("  stop: %.0f ms from Stop to the sweep's end (%s, %zu point(s) kept)"
                "  (goal: < 1000 ms)\n",
                stopMs,
                results.size() < app::sweepPoints(document.session()).size() ? "cancelled"
                                                                             : "not cancelled",
                results.size());
    if (!results.empty())
        std::printf("  first point: %.0f requests/s, %llu failed\n",
                    results.front().requestsPerSecond(),
                    static_cast<unsigned long long>(results.front().failed));
    co_return 0;
}

app::Session thousandResults(int count) {
    app::Session session;
    session.name = QStringLiteral("five modes, ten levels, twenty runs");
    const app::DeploymentMode modes[] = {
        app::DeploymentMode::Host, app::DeploymentMode::ContainerHostNetwork,
        app::DeploymentMode::ContainerNat, app::DeploymentMode::LinuxBridge,
        app::DeploymentMode::OvsBridge};
    for (int i = 0; i < 5; ++i) {
        app::Target target = app::makeTarget(app::deploymentModeId(modes[i]), modes[i], i);
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(8080 + i);
        session.targets.push_back(target);
    }
    session.baselineTargetId = session.targets.front().id;
    session.plan.concurrencyLevels = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    session.plan.repetitions = count / 50;
    std::mt19937_64 random(42);
    std::lognormal_distribution<double> latency(std::log(300'000.0), 0.6);
    for (int level : session.plan.concurrencyLevels) {
        for (int repetition = 0; repetition < session.plan.repetitions; ++repetition) {
            for (int t = 0; t < 5; ++t) {
                app::PointResult result;
                result.targetId = session.targets[size_t(t)].id;
                result.concurrency = level;
                result.repetition = repetition;
                result.durationSeconds = 10;
                result.complete =
                    uint64_t(200'000 * (1.0 - 0.08 * t) * (0.95 + 0.1 * (repetition % 3)));
                result.bytesTotal = result.complete * 5141;
                engine::Histogram histogram;
                for (int i = 0; i < 20'000; ++i)
                    histogram.record(int64_t(latency(random) * (1 + 0.1 * t) * std::sqrt(level)));
                const std::string bytes = histogram.serialize();
                result.totalHistogram = QByteArray(bytes.data(), qsizetype(bytes.size()));
                result.total = app::summarize(histogram);
                session.results.push_back(std::move(result));
            }
        }
    }
    return session;
}

// How long the GUI thread spends copying the session it hands a rebuild.
void measureCopy(const app::Session& session) {
    std::vector<double> copies;
    for (int round = 0; round < 5; ++round) {
        QElapsedTimer clock;
        clock.start();
        const auto copy = std::make_shared<const app::Session>(session);
        copies.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    std::printf("%zu results: copying the session for a rebuild %.1f ms (median of 5)\n",
                session.results.size(), percentile(copies, 50));
}

// What a rebuild's worker spends its time on, measured here on one thread.
void measureSnapshotParts(const app::Session& session) {
    QElapsedTimer clock;
    clock.start();
    const app::Comparison comparison(session);
    const double comparisonMs = double(clock.nsecsElapsed()) / 1e6;
    clock.restart();
    const auto distributions =
        app::latencyDistributionsAt(session, session.plan.concurrencyLevels.back());
    const double distributionsMs = double(clock.nsecsElapsed()) / 1e6;
    std::printf("%zu results on the worker: comparison %.0f ms (%zu rows), latency distributions "
                "at one level %.0f ms (%zu targets)\n",
                session.results.size(), comparisonMs, comparison.rows().size(), distributionsMs,
                distributions.size());
}

// Where the worker's read of the file goes, as app::parseSession() reads it:
// the results cut apart (one thread), the rest parsed, then each result parsed
// and read on every core. Then the whole file parsed on one thread and read,
// as files the cut is unsure of are. Wall time, and the CPU time of all
// threads in brackets.
void measureReadParts(const QString& path) {
    QElapsedTimer clock;
    std::vector<std::pair<double, double>> laps; // wall, CPU
    double cpuBefore = processCpuMs();
    const auto lap = [&] {
        const double cpu = processCpuMs();
        laps.emplace_back(double(clock.nsecsElapsed()) / 1e6, cpu - cpuBefore);
        cpuBefore = cpu;
        clock.restart();
    };
    clock.start();
    // As the window's open reads it (session_file.cpp).
    const app::Result<QByteArray> read = app::readRegularFile(path, app::kMaxSessionFileBytes);
    if (!read)
        return;
    const QByteArray& bytes = *read;
    lap();
    const std::optional<app::SessionFileSplit> split = app::splitSessionFile(bytes);
    lap();
    const QJsonDocument rest =
        split ? QJsonDocument::fromJson(split->rest) : QJsonDocument(QJsonObject());
    lap();
    const auto splitSession =
        split ? app::sessionFromSplitJson(rest.object(), split->results) : std::nullopt;
    lap();
    const QJsonDocument document = QJsonDocument::fromJson(bytes);
    lap();
    const auto session = app::sessionFromJson(document.object());
    lap();
    std::printf("reading the %.1f MiB file: read %.0f ms (%.0f); cut into %zu results %.0f ms "
                "(%.0f), the rest parsed %.0f ms (%.0f), results parsed and read %.0f ms (%.0f)%s; "
                "whole-file way: JSON on one thread %.0f ms (%.0f), session %.0f ms (%.0f)%s\n",
                double(bytes.size()) / (1 << 20), laps[0].first, laps[0].second,
                split ? split->results.size() : size_t(0), laps[1].first, laps[1].second,
                laps[2].first, laps[2].second, laps[3].first, laps[3].second,
                splitSession && *splitSession ? "" : " (not cut, or refused)", laps[4].first,
                laps[4].second, laps[5].first, laps[5].second, session ? "" : " (refused)");
}

QCoro::Task<int> measureOpen(const Options& options) {
    QTemporaryDir dir;
    const QString path = options.sessionPath.isEmpty()
                             ? dir.filePath(QStringLiteral("thousand.loadscope"))
                             : options.sessionPath;
    if (options.sessionPath.isEmpty()) {
        app::SessionDocument writer;
        writer.reset(thousandResults(options.results));
        QElapsedTimer writing;
        writing.start();
        if (const auto saved = writer.saveAs(path); !saved) {
            std::fprintf(stderr, "gui_responsiveness: %s\n", qPrintable(saved.error().toString()));
            co_return 1;
        }
        // What File > Save held the GUI thread for when it wrote on it.
        std::printf("%d results: the session file written on one thread in %.0f ms\n",
                    options.results, double(writing.nsecsElapsed()) / 1e6);
        if (!options.keepPath.isEmpty())
            (void)writer.saveAs(options.keepPath);
        measureCopy(writer.session());
        measureSnapshotParts(writer.session());
    }
    measureReadParts(path);
    {
        // The machine's own noise, as before the sweep.
        QWidget quiet;
        LagProbe idle(&quiet);
        idle.start();
        co_await QCoro::sleepFor(1s);
        idle.stop();
        const auto& lags = idle.lagsMs();
        std::printf("idle lag before opening (%zu ticks): p99 %.1f ms  max %.1f ms\n", lags.size(),
                    percentile(lags, 99),
                    lags.empty() ? 0.0 : *std::max_element(lags.begin(), lags.end()));
    }
    for (int round = 1; round <= 3; ++round) {
        // Opened as the File menu opens it: the window reads the file on a
        // worker thread and applies it on this one.
        ui::MainWindow window;
        ui::MainWindow::Prompts prompts;
        prompts.error = [](const QString&, const QString& message) {
            std::fprintf(stderr, "gui_responsiveness: %s\n", qPrintable(message));
        };
        window.setPrompts(prompts);
        window.resize(1280, 800);
        auto* page = window.findChild<ui::ComparePage*>();
        window.pages()->setCurrentWidget(page);
        window.show();
        // The window as the user has it before File > Open: laid out and
        // painted. Its first paint is not part of opening.
        co_await QCoro::sleepFor(500ms);

        LagProbe probe(&window);
        std::vector<ProbeEvent> events;
        double readMs = 0;
        QObject::connect(window.document(), &app::SessionDocument::sessionChanged, &window, [&] {
            if (readMs == 0)
                readMs = probe.nowMs();
            events.push_back({probe.nowMs(), QStringLiteral("read")});
        });
        QObject::connect(page, &ui::ComparePage::chartsChanged, &window, [&] {
            events.push_back({probe.nowMs(), QStringLiteral("charts set")});
        });
        probe.start();
        auto opening = window.openSession(path);
        events.push_back({probe.nowMs(), QStringLiteral("asked")});
        if (!co_await std::move(opening))
            co_return 1;
        const double openMs = probe.nowMs();
        events.push_back({openMs, QStringLiteral("opened")});
        while (!page->isUpToDate())
            co_await qCoro(page, &ui::ComparePage::chartsChanged, 30s);
        const double chartedMs = probe.nowMs();
        events.push_back({chartedMs, QStringLiteral("charted")});
        page->grab();
        const double paintedMs = probe.nowMs();
        events.push_back({paintedMs, QStringLiteral("painted")});
        probe.stop();
        const auto& lags = probe.lagsMs();
        std::printf("%zu results, round %d: total %.0f ms  (goal: < 1000 ms) = read on a worker "
                    "%.0f ms, applied here %.0f ms, compared on a worker and charted %.0f ms, "
                    "paint %.0f ms\n"
                    "    GUI thread meanwhile (%zu ticks): longest stall %.1f ms, p99 %.1f ms"
                    "  (goal: none over 50 ms)\n",
                    window.document()->session().results.size(), round, paintedMs, readMs,
                    openMs - readMs, chartedMs - openMs, paintedMs - chartedMs, lags.size(),
                    probe.maxLagMs(), percentile(lags, 99));
        QString timeline;
        for (const ProbeEvent& event : events)
            timeline += QStringLiteral(" %1 %2,").arg(event.what).arg(event.atMs, 0, 'f', 0);
        timeline.chop(1);
        std::printf("    at (ms):%s\n", qPrintable(timeline));
        printLargestLags(probe, events);

        // File > Save of what was opened, into a new file: written on a
        // worker while the probe ticks here.
        LagProbe saveProbe(&window);
        saveProbe.start();
        const QString savedPath = path + QStringLiteral(".saved");
        if (!co_await window.saveSessionAs(savedPath))
            co_return 1;
        saveProbe.stop();
        std::printf("    File > Save: %.0f ms; GUI thread meanwhile (%zu ticks): longest stall "
                    "%.1f ms  (goal: none over 50 ms)\n",
                    saveProbe.nowMs(), saveProbe.lagsMs().size(), saveProbe.maxLagMs());
        QFile::remove(savedPath);
    }
    co_return 0;
}

} // namespace

int main(int argc, char* argv[]) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    // The window keeps recent files and geometry in settings: never the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Event-loop lag during a sweep, Stop latency, and the time to open and chart a large "
        "session."));
    parser.addHelpOption();
    const QCommandLineOption concurrency(QStringLiteral("concurrency"),
                                         QStringLiteral("Connections of the sweep."),
                                         QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption seconds(QStringLiteral("seconds"),
                                     QStringLiteral("Length of each point."), QStringLiteral("S"),
                                     QStringLiteral("4"));
    const QCommandLineOption results(QStringLiteral("results"),
                                     QStringLiteral("Results of the opened session (x50)."),
                                     QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption openOnly(QStringLiteral("open-only"),
                                      QStringLiteral("Only measure opening and charting."));
    const QCommandLineOption keep(QStringLiteral("keep"),
                                  QStringLiteral("Also save the generated session here."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption read(QStringLiteral("read"),
                                  QStringLiteral("Only time reading this session file, in parts."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption open(
        QStringLiteral("open"), QStringLiteral("Open this session file instead of generating one."),
        QStringLiteral("FILE"));
    parser.addOption(open);
    parser.addOption(keep);
    parser.addOption(read);
    parser.addOption(openOnly);
    parser.addOption(concurrency);
    parser.addOption(seconds);
    parser.addOption(results);
    parser.process(application);
    Options options;
    options.concurrency = std::max(1, parser.value(concurrency).toInt());
    options.seconds = std::max(0.5, parser.value(seconds).toDouble());
    options.results = std::max(50, parser.value(results).toInt());
    options.openOnly = parser.isSet(openOnly);
    options.keepPath = parser.value(keep);
    options.sessionPath = parser.value(open);
    if (parser.isSet(read)) {
        for (int round = 0; round < 3; ++round)
            measureReadParts(parser.value(read));
        return 0;
    }

    int status = 0;
    const auto run = [&](QCoro::Task<int> task) {
        QCoro::connect(std::move(task), &application, [&status](int rc) {
            status = rc;
            QCoreApplication::exit(rc);
        });
        QApplication::exec();
    };
    if (!options.openOnly)
        run(measureSweep(options));
    if (status != 0)
        return status;
    run(measureOpen(options));
    return status;
}
