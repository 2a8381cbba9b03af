// Renders every page of the workbench window with the demo session into
// PNGs, offscreen: the README's screenshots. The demo's two targets (the
// embedded HTTP server, direct and through a userland proxy) are served in
// process, a short real sweep runs through the Run page, and each page is
// grabbed once it shows what a user would see; the Compare page twice, the
// second time with the CPU metrics (compare-cpu.png).
//
//   render_screenshots --screenshots DIR [--point-seconds S]
//   render_screenshots --synthetic-rate-sweep DIR
//
// The second form grabs only the Compare page of a rate sweep of the demo's
// two modes whose results are synthetic (a queue whose latency grows as
// 1/(1 - load), the proxy at 40% of the direct capacity), written as
// compare-rate-sweep-synthetic.png: a picture of the page, not a measurement.

#include "app/session/metric.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "tests/app/session_test_data.h"
#include "ui/shell/main_window.h"
#include "ui_test_servers.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QCoroSignal>
#include <QCoroTask>
#include <QCoroTimer>
#include <QDir>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

// The ports the demo session names; other ones are used when these are taken.
constexpr uint16_t kDemoHttpPort = 18080;
constexpr uint16_t kDemoProxyPort = 18081;

void fail(const QString& message) {
    std::fprintf(stderr, "render_screenshots: %s\n", qPrintable(message));
}

QCoro::Task<bool> grabPage(ui::MainWindow& window, int page, const QDir& out, const QString& name) {
    window.pages()->setCurrentIndex(page);
    // Charts lay out on posted events: let them run before the picture.
    co_await QCoro::sleepFor(200ms);
    const QString path = out.filePath(name + QStringLiteral(".png"));
    if (!window.grab().save(path, "PNG")) {
        fail(QStringLiteral("cannot write %1").arg(path));
        co_return false;
    }
    std::printf("%s\n", qPrintable(path));
    co_return true;
}

QModelIndex firstCellShowing(const QAbstractItemModel& model, const QString& text) {
    for (int row = 0; row < model.rowCount(); ++row)
        for (int column = 0; column < model.columnCount(); ++column)
            if (model.index(row, column).data().toString() == text)
                return model.index(row, column);
    return {};
}

// The Compare page once more with softirq per request in the first charts and
// the table scrolled to the CPU rows (softirq, client CPU, other load): where
// each mode's CPU went. The demo serves in process, so no server CPU row.
QCoro::Task<bool> grabCpuMetrics(ui::MainWindow& window, const QDir& out) {
    QWidget* compare = window.pages()->widget(3);
    auto* metric = compare->findChild<QComboBox*>(QStringLiteral("metricCombo"));
    auto* table = compare->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    const int softirq = metric ? metric->findData(int(app::Metric::SoftirqPerRequest)) : -1;
    if (softirq < 0 || !table) {
        fail(QStringLiteral("the Compare page has no softirq metric or no table"));
        co_return false;
    }
    metric->setCurrentIndex(softirq);
    co_await QCoro::sleepFor(500ms); // the charts and the table follow on posted events
    const QModelIndex cpuRow =
        firstCellShowing(*table->model(), app::metricInfo(app::Metric::SoftirqPerRequest).label);
    if (!cpuRow.isValid()) {
        fail(QStringLiteral("the comparison table has no softirq row"));
        co_return false;
    }
    table->scrollTo(cpuRow, QAbstractItemView::PositionAtTop);
    co_return co_await grabPage(window, 3, out, QStringLiteral("compare-cpu"));
}

// The demo session with its two targets, or nothing (and the reason printed).
QCoro::Task<std::optional<app::Session>> openDemo(ui::MainWindow& window) {
    if (!co_await window.openSession(QStringLiteral("demo-proxy"))) {
        fail(QStringLiteral("cannot open the demo session"));
        co_return std::nullopt;
    }
    app::Session session = window.document()->session();
    if (session.targets.size() != 2) {
        fail(QStringLiteral("the demo session does not have two targets"));
        co_return std::nullopt;
    }
    co_return session;
}

QCoro::Task<int> render(ui::MainWindow& window, const test::UiHttpServers& servers, const QDir& out,
                        double pointSeconds) {
    app::SessionDocument* document = window.document();
    std::optional<app::Session> demo = co_await openDemo(window);
    if (!demo)
        co_return 1;
    app::Session session = std::move(*demo);
    // Keep the demo's URLs when its ports were free, so the pictures show them.
    session.targets[0].http.url = servers.url();
    session.targets[1].http.url = servers.proxyUrl();
    session.plan.durationSeconds = pointSeconds;
    document->reset(session);

    co_await QCoro::sleepFor(300ms);
    if (!co_await grabPage(window, 0, out, QStringLiteral("targets")) ||
        !co_await grabPage(window, 1, out, QStringLiteral("sweep")))
        co_return 1;

    window.pages()->setCurrentIndex(2);
    auto* start = window.pages()->widget(2)->findChild<QPushButton*>(QStringLiteral("startButton"));
    if (!start) {
        fail(QStringLiteral("the Run page has no Start button"));
        co_return 1;
    }
    app::SweepRunner* runner = window.runner();
    start->click();
    // The Run page while the last point runs: live charts and a full log.
    const int points = int(app::sweepPoints(session).size());
    int started = -1;
    while (started < points - 1) {
        const auto next = co_await qCoro(runner, &app::SweepRunner::pointStarted, 60s);
        if (!next) {
            fail(QStringLiteral("the sweep did not reach its last point"));
            co_return 1;
        }
        started = std::get<0>(*next).index;
    }
    co_await QCoro::sleepFor(std::chrono::milliseconds(int(pointSeconds * 400)));
    if (!co_await grabPage(window, 2, out, QStringLiteral("run")))
        co_return 1;
    if (runner->isRunning()) {
        if (!co_await qCoro(runner, &app::SweepRunner::runningChanged, 60s)) {
            fail(QStringLiteral("the sweep did not finish"));
            co_return 1;
        }
    }
    if (int(window.document()->session().results.size()) != points) {
        fail(QStringLiteral("the sweep measured %1 of %2 points")
                 .arg(window.document()->session().results.size())
                 .arg(points));
        co_return 1;
    }
    if (!co_await grabPage(window, 3, out, QStringLiteral("compare")))
        co_return 1;
    co_return co_await grabCpuMetrics(window, out) ? 0 : 1;
}

// Offered rate -> (achieved req/s, corrected p50, p99, p99.9 ms) of a server
// of `capacity` req/s and `baseMs` service time: below saturation the wait
// of an M/M/1 queue, above it the backlog of a run of a few seconds.
app::PointResult syntheticRatePoint(const QUuid& target, double rate, int repetition,
                                    double capacity, double baseMs) {
    const double load = rate / capacity;
    const double achieved = std::min(rate, capacity * 0.985) * (1 - 0.004 * repetition);
    double p50 = 0;
    if (load < 0.97)
        p50 = baseMs / (1 - load);
    else
        p50 = baseMs / 0.03 + 2500 * (load - 0.97);
    const double jitter = 1 + 0.03 * repetition;
    app::PointResult result = test::rateResult(target, 50, rate, repetition, achieved, p50 * jitter,
                                               p50 * 4.6 * jitter, p50 * 6.9 * jitter);
    result.total.meanMs = p50 * 1.3 * jitter;
    // Uncorrected: the wait after the send only, blind to the backlog.
    const double sent = baseMs / (1 - std::min(load, 0.9));
    result.uncorrected.percentilesMs = {{50, sent}, {99, sent * 4.6}, {99.9, sent * 6.9}};
    return result;
}

QCoro::Task<int> renderSyntheticRateSweep(ui::MainWindow& window, const QDir& out) {
    app::SessionDocument* document = window.document();
    std::optional<app::Session> demo = co_await openDemo(window);
    if (!demo)
        co_return 1;
    app::Session session = std::move(*demo);
    session.name += QStringLiteral(" (synthetic rate sweep)");
    session.plan.levelKind = app::SweepLevelKind::Rate;
    session.plan.rateLevels = {2000, 5000, 10000, 15000, 20000, 25000, 30000, 40000, 50000};
    session.plan.rateConnections = 50;
    session.plan.repetitions = 2;
    session.results.clear();
    for (double rate : session.plan.rateLevels) {
        for (int repetition = 0; repetition < 2; ++repetition) {
            session.results.push_back(
                syntheticRatePoint(session.targets[0].id, rate, repetition, 42000, 0.12));
            session.results.push_back(
                syntheticRatePoint(session.targets[1].id, rate, repetition, 17000, 0.3));
        }
    }
    document->reset(session);
    window.pages()->setCurrentIndex(3);
    co_await QCoro::sleepFor(1500ms); // the comparison is built on a worker thread
    co_return co_await grabPage(window, 3, out, QStringLiteral("compare-rate-sweep-synthetic")) ? 0
                                                                                                : 1;
}

} // namespace

int main(int argc, char* argv[]) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("loadscope-screenshots"));
    // Settings (geometry, recent files) go to a test location, not the user's.
    QStandardPaths::setTestModeEnabled(true);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Renders each page of the window with the demo session into PNGs."));
    parser.addHelpOption();
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Directory to write the PNGs into."),
                                         QStringLiteral("DIR"));
    const QCommandLineOption seconds(QStringLiteral("point-seconds"),
                                     QStringLiteral("Length of each point of the demo sweep."),
                                     QStringLiteral("S"), QStringLiteral("0.5"));
    const QCommandLineOption syntheticRate(
        QStringLiteral("synthetic-rate-sweep"),
        QStringLiteral("Only the Compare page of a synthetic rate sweep, into DIR."),
        QStringLiteral("DIR"));
    parser.addOption(screenshots);
    parser.addOption(seconds);
    parser.addOption(syntheticRate);
    parser.process(application);
    if (!parser.isSet(screenshots) && !parser.isSet(syntheticRate)) {
        fail(QStringLiteral("--screenshots DIR or --synthetic-rate-sweep DIR is required"));
        return 2;
    }
    const bool rateOnly = parser.isSet(syntheticRate);
    const QDir out(parser.value(rateOnly ? syntheticRate : screenshots));
    if (!QDir().mkpath(out.absolutePath())) {
        fail(QStringLiteral("cannot create %1").arg(out.absolutePath()));
        return 1;
    }
    bool secondsOk = false;
    const double pointSeconds = parser.value(seconds).toDouble(&secondsOk);
    if (!secondsOk || pointSeconds <= 0 || pointSeconds > 60) {
        fail(QStringLiteral("--point-seconds wants a number of seconds in (0, 60]"));
        return 2;
    }

    const test::UiHttpServers servers(kDemoHttpPort, kDemoProxyPort);
    if (!servers.isRunning()) {
        fail(QStringLiteral("cannot start the embedded servers: %1").arg(servers.error()));
        return 1;
    }

    ui::MainWindow window;
    ui::MainWindow::Prompts prompts;
    prompts.error = [](const QString& title, const QString& message) {
        fail(title + QStringLiteral(": ") + message);
    };
    prompts.unsavedChanges = [](const QString&) {
        return ui::MainWindow::UnsavedChoice::Discard;
    };
    window.setPrompts(prompts);
    window.resize(1280, 800);
    window.show();

    int status = 1;
    const auto finished = [&status](int rc) {
        status = rc;
        QCoreApplication::exit(rc);
    };
    if (rateOnly)
        QCoro::connect(renderSyntheticRateSweep(window, out), &application, finished);
    else
        QCoro::connect(render(window, servers, out, pointSeconds), &application, finished);
    QApplication::exec();
    return status;
}
