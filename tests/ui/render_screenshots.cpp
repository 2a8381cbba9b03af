// Renders every page of the workbench window with the demo session into
// PNGs, offscreen: the README's screenshots. The demo's two targets (the
// embedded HTTP server, direct and through a userland proxy) are served in
// process, a short real sweep runs through the Run page, and each page is
// grabbed once it shows what a user would see; the Compare page three times,
// the second time with the CPU metrics (compare-cpu.png), the third with its
// table filtered to p99 at every level (compare-table.png); and the Add Lab
// Targets dialog over the window, every mode this machine builds ticked
// (lab-dialog.png).
//
//   render_screenshots --screenshots DIR [--point-seconds S]
//   render_screenshots --rate-sweep DIR [--rates R,R,...] [--point-seconds S]
//
// The second form runs the demo's two modes as a rate sweep instead (each
// level a fixed offered rate at 50 connections, through the Run page as a user
// would) and grabs the Compare page, latency against achieved throughput with
// each mode's knee, as compare-rate-sweep.png.
//
// The demo sweep takes a CPU profile of every point (where this machine
// allows it), and the Compare page's two breakdown charts, CPU per request by
// path and its difference from the baseline, are drawn side by side into
// compare-cpu-paths.png. The third form draws the same two charts of a saved
// session (one of the lab's examples, swept with its profiles) into
// DIR/NAME-cpu-paths.png:
//
//   render_screenshots --paths-of SESSION --screenshots DIR

#include "app/lab/lab_mode.h"
#include "app/session/metric.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "ui/common/chart_export.h"
#include "ui/common/chart_panel.h"
#include "ui/compare/compare_page.h"
#include "ui/shell/lab_targets_dialog.h"
#include "ui/shell/main_window.h"
#include "ui_test_servers.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QCoroSignal>
#include <QCoroTask>
#include <QCoroTimer>
#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
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
    // The Compare page rebuilds on a worker thread and sets its charts one per turn of the
    // event loop: on a busy machine that is longer than a moment.
    if (auto* compare = qobject_cast<ui::ComparePage*>(window.pages()->widget(page))) {
        for (int waited = 0; waited < 200 && !compare->isUpToDate(); ++waited)
            co_await QCoro::sleepFor(50ms);
    }
    // Charts lay out on posted events: let them run before the picture.
    co_await QCoro::sleepFor(300ms);
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

// The Compare page's CPU breakdown charts side by side, each laid out at 800 x
// 560: the page's grid has no room to show them at a readable size.
QCoro::Task<bool> grabCpuPaths(ui::MainWindow& window, const QDir& out, QString name) {
    window.pages()->setCurrentIndex(3);
    auto* compare = window.pages()->widget(3)->findChild<ui::ComparePage*>();
    if (!compare)
        compare = qobject_cast<ui::ComparePage*>(window.pages()->widget(3));
    if (!compare) {
        fail(QStringLiteral("no Compare page"));
        co_return false;
    }
    compare->rebuildIfPending();
    for (int waited = 0; !compare->isUpToDate() && waited < 100; ++waited)
        co_await QCoro::sleepFor(100ms);
    co_await QCoro::sleepFor(300ms);
    QList<QChart*> charts;
    for (ui::ChartPanel* panel : compare->chartPanels())
        if (panel->objectName() == QLatin1String("cpuByPathChart") ||
            panel->objectName() == QLatin1String("cpuByPathDifferenceChart"))
            charts << panel->chart();
    if (charts.size() != 2) {
        fail(QStringLiteral("the Compare page has no CPU breakdown charts"));
        co_return false;
    }
    const QSizeF each(800, 560);
    QImage image(QSize(1600, 560), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    for (qsizetype i = 0; i < charts.size(); ++i)
        ui::renderChart(charts[i], &painter, QRectF(QPointF(each.width() * double(i), 0), each),
                        each);
    painter.end();
    const QString path = out.filePath(name + QStringLiteral(".png"));
    if (!image.save(path, "PNG")) {
        fail(QStringLiteral("cannot write %1").arg(path));
        co_return false;
    }
    std::printf("%s\n", qPrintable(path));
    co_return true;
}

// The breakdown charts of a saved session, as the window shows them once it is opened.
QCoro::Task<int> renderPathsOf(ui::MainWindow& window, QString file, const QDir& out) {
    // Named locals, not temporaries inside the co_await expressions: GCC 12
    // builds those outside the coroutine frame.
    const QString name = QFileInfo(file).completeBaseName() + QStringLiteral("-cpu-paths");
    const bool opened = co_await window.openSession(file);
    if (!opened) {
        fail(QStringLiteral("cannot open %1").arg(file));
        co_return 1;
    }
    const bool drawn = co_await grabCpuPaths(window, out, name);
    co_return drawn ? 0 : 1;
}

// The demo session with its two targets pointed at `servers` (the demo's own
// URLs when its ports were free, so the pictures show them), or nothing (and
// the reason printed).
QCoro::Task<std::optional<app::Session>> openDemo(ui::MainWindow& window,
                                                  const test::UiHttpServers& servers) {
    if (!co_await window.openSession(QStringLiteral("demo-proxy"))) {
        fail(QStringLiteral("cannot open the demo session"));
        co_return std::nullopt;
    }
    app::Session session = window.document()->session();
    if (session.targets.size() != 2) {
        fail(QStringLiteral("the demo session does not have two targets"));
        co_return std::nullopt;
    }
    session.targets[0].http.url = servers.url();
    session.targets[1].http.url = servers.proxyUrl();
    co_return session;
}

// Starts the document's sweep on the Run page, grabs the page while the last
// point runs (live charts and a full log) when `out` is given, and waits for
// every point's result.
QCoro::Task<bool> runThroughRunPage(ui::MainWindow& window, const QDir* out, double pointSeconds) {
    const app::Session& session = window.document()->session();
    window.pages()->setCurrentIndex(2);
    auto* start = window.pages()->widget(2)->findChild<QPushButton*>(QStringLiteral("startButton"));
    if (!start) {
        fail(QStringLiteral("the Run page has no Start button"));
        co_return false;
    }
    app::SweepRunner* runner = window.runner();
    start->click();
    const int points = int(app::sweepPoints(session).size());
    int started = -1;
    while (started < points - 1) {
        const auto next = co_await qCoro(runner, &app::SweepRunner::pointStarted, 60s);
        if (!next) {
            fail(QStringLiteral("the sweep did not reach its last point"));
            co_return false;
        }
        started = std::get<0>(*next).index;
    }
    co_await QCoro::sleepFor(std::chrono::milliseconds(int(pointSeconds * 400)));
    if (out && !co_await grabPage(window, 2, *out, QStringLiteral("run")))
        co_return false;
    if (runner->isRunning()) {
        if (!co_await qCoro(runner, &app::SweepRunner::runningChanged, 60s)) {
            fail(QStringLiteral("the sweep did not finish"));
            co_return false;
        }
    }
    if (int(window.document()->session().results.size()) != points) {
        fail(QStringLiteral("the sweep measured %1 of %2 points")
                 .arg(window.document()->session().results.size())
                 .arg(points));
        co_return false;
    }
    co_return true;
}

// The Compare page with its table filtered to one metric at every level: compare-table.png.
QCoro::Task<bool> grabFilteredTable(ui::MainWindow& window, const QDir& out) {
    QWidget* compare = window.pages()->widget(3);
    auto* level = compare->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    auto* metric = compare->findChild<QComboBox*>(QStringLiteral("metricCombo"));
    const int all = level ? level->findData(-1) : -1;
    const int p99 = metric ? metric->findData(int(app::Metric::LatencyP99)) : -1;
    if (all < 0 || p99 < 0) {
        fail(QStringLiteral("the Compare page has no \"all levels\" pick or no p99 metric"));
        co_return false;
    }
    // As a user picks: the item, then activated.
    level->setCurrentIndex(all);
    Q_EMIT level->activated(all);
    metric->setCurrentIndex(p99);
    Q_EMIT metric->activated(p99);
    co_await QCoro::sleepFor(500ms);
    co_return co_await grabPage(window, 3, out, QStringLiteral("compare-table"));
}

// The Add Lab Targets dialog over the Targets page, once it has checked this machine, with
// every mode it can build ticked: lab-dialog.png.
QCoro::Task<bool> grabLabDialog(ui::MainWindow& window, const QDir& out) {
    window.pages()->setCurrentIndex(0);
    auto* add = window.findChild<QAction*>(QStringLiteral("addLabTargetsAction"));
    if (!add) {
        fail(QStringLiteral("the Targets page has no Add Lab Targets action"));
        co_return false;
    }
    add->trigger();
    auto* dialog = window.findChild<ui::LabTargetsDialog*>();
    if (!dialog) {
        fail(QStringLiteral("Add Lab Targets opened no dialog"));
        co_return false;
    }
    if (dialog->isChecking() &&
        !co_await qCoro(dialog, &ui::LabTargetsDialog::availabilityChanged, 90s)) {
        fail(QStringLiteral("the lab dialog did not finish checking this machine"));
        co_return false;
    }
    for (app::lab::LabMode mode : app::lab::labModes())
        dialog->setModeChecked(mode, true);
    co_await QCoro::sleepFor(300ms);
    // The window with the dialog where it opens, over its middle.
    QPixmap picture = window.grab();
    const QPixmap shown = dialog->grab();
    QPainter painter(&picture);
    const QRect at((picture.width() - shown.width()) / 2, (picture.height() - shown.height()) / 2,
                   shown.width(), shown.height());
    painter.drawPixmap(at.topLeft(), shown);
    // Offscreen windows have no frame: a line where the window manager's would be.
    painter.setPen(QPen(QColor(0x60, 0x60, 0x60), 1));
    painter.drawRect(at.adjusted(-1, -1, 0, 0));
    painter.end();
    dialog->reject();
    const QString path = out.filePath(QStringLiteral("lab-dialog.png"));
    if (!picture.save(path, "PNG")) {
        fail(QStringLiteral("cannot write %1").arg(path));
        co_return false;
    }
    std::printf("%s\n", qPrintable(path));
    co_return true;
}

QCoro::Task<int> render(ui::MainWindow& window, const test::UiHttpServers& servers, const QDir& out,
                        double pointSeconds) {
    app::SessionDocument* document = window.document();
    std::optional<app::Session> demo = co_await openDemo(window, servers);
    if (!demo)
        co_return 1;
    app::Session session = std::move(*demo);
    session.plan.durationSeconds = pointSeconds;
    session.plan.profile = true;
    document->reset(session);

    co_await QCoro::sleepFor(300ms);
    if (!co_await grabPage(window, 0, out, QStringLiteral("targets")) ||
        !co_await grabPage(window, 1, out, QStringLiteral("sweep")))
        co_return 1;

    if (!co_await runThroughRunPage(window, &out, pointSeconds))
        co_return 1;
    if (!co_await grabPage(window, 3, out, QStringLiteral("compare")))
        co_return 1;
    if (!co_await grabCpuMetrics(window, out) || !co_await grabFilteredTable(window, out))
        co_return 1;
    if (!co_await grabCpuPaths(window, out, QStringLiteral("compare-cpu-paths")))
        co_return 1;
    co_return co_await grabLabDialog(window, out) ? 0 : 1;
}

// The demo's two modes at fixed offered rates, measured, and the Compare page
// of the result: where each mode's latency turns up, and its knee.
QCoro::Task<int> renderRateSweep(ui::MainWindow& window, const test::UiHttpServers& servers,
                                 const QDir& out, std::vector<double> rates, double pointSeconds) {
    app::SessionDocument* document = window.document();
    std::optional<app::Session> demo = co_await openDemo(window, servers);
    if (!demo)
        co_return 1;
    app::Session session = std::move(*demo);
    session.name += QStringLiteral(" (rate sweep)");
    session.plan.levelKind = app::SweepLevelKind::Rate;
    session.plan.rateLevels = std::move(rates);
    session.plan.rateConnections = 50;
    session.plan.repetitions = 2;
    session.plan.durationSeconds = pointSeconds;
    session.results.clear();
    document->reset(session);
    if (!co_await runThroughRunPage(window, nullptr, pointSeconds))
        co_return 1;
    window.pages()->setCurrentIndex(3);
    co_await QCoro::sleepFor(1500ms); // the comparison is built on a worker thread
    co_return co_await grabPage(window, 3, out, QStringLiteral("compare-rate-sweep")) ? 0 : 1;
}

// "R,R,..." as offered rates, each in (0, 1e6], or nothing.
std::optional<std::vector<double>> parseRates(const QString& text) {
    std::vector<double> rates;
    for (const QString& part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const double rate = part.trimmed().toDouble(&ok);
        if (!ok || rate <= 0 || rate > 1e6)
            return std::nullopt;
        rates.push_back(rate);
    }
    return rates;
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
    const QCommandLineOption rateSweep(
        QStringLiteral("rate-sweep"),
        QStringLiteral("Only the Compare page of a measured rate sweep of the demo, into DIR."),
        QStringLiteral("DIR"));
    const QCommandLineOption rateList(
        QStringLiteral("rates"), QStringLiteral("The rate sweep's offered rates (req/s)."),
        QStringLiteral("R,R,..."), QStringLiteral("1000,4000,8000,12000,16000,20000,24000"));
    const QCommandLineOption pathsOf(
        QStringLiteral("paths-of"),
        QStringLiteral("Only the CPU breakdown charts of a saved SESSION, into the --screenshots "
                       "DIR."),
        QStringLiteral("SESSION"));
    parser.addOption(screenshots);
    parser.addOption(pathsOf);
    parser.addOption(seconds);
    parser.addOption(rateSweep);
    parser.addOption(rateList);
    parser.process(application);
    if (!parser.isSet(screenshots) && !parser.isSet(rateSweep)) {
        fail(QStringLiteral("--screenshots DIR or --rate-sweep DIR is required"));
        return 2;
    }
    const bool rateOnly = parser.isSet(rateSweep);
    const std::optional<std::vector<double>> rates = parseRates(parser.value(rateList));
    if (!rates) {
        fail(QStringLiteral(
            "--rates wants offered rates in (0, 1000000] req/s, separated by commas"));
        return 2;
    }
    const QDir out(parser.value(rateOnly ? rateSweep : screenshots));
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
    prompts.unsavedChanges = [](const QString&, ui::MainWindow::Prompts::UnsavedAnswer answer) {
        answer(ui::MainWindow::UnsavedChoice::Discard);
    };
    window.setPrompts(prompts);
    window.resize(1280, 800);
    window.show();

    int status = 1;
    const auto finished = [&status](int rc) {
        status = rc;
        QCoreApplication::exit(rc);
    };
    if (parser.isSet(pathsOf))
        QCoro::connect(renderPathsOf(window, parser.value(pathsOf), out), &application, finished);
    else if (rateOnly)
        QCoro::connect(renderRateSweep(window, servers, out, *rates, pointSeconds), &application,
                       finished);
    else
        QCoro::connect(render(window, servers, out, pointSeconds), &application, finished);
    QApplication::exec();
    return status;
}
