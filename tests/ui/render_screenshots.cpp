// Renders every page of the workbench window with the demo session into
// PNGs, offscreen: the README's screenshots. The demo's two targets (the
// embedded HTTP server, direct and through a userland proxy) are served in
// process, a short real sweep runs through the Run page, and each page is
// grabbed once it shows what a user would see.
//
//   render_screenshots --screenshots DIR [--point-seconds S]

#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "ui/shell/main_window.h"
#include "ui_test_servers.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoroSignal>
#include <QCoroTask>
#include <QCoroTimer>
#include <QDir>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
#include <chrono>
#include <cstdio>

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

QCoro::Task<int> render(ui::MainWindow& window, const test::UiHttpServers& servers, const QDir& out,
                        double pointSeconds) {
    app::SessionDocument* document = window.document();
    if (!co_await window.openSession(QStringLiteral("demo-proxy"))) {
        fail(QStringLiteral("cannot open the demo session"));
        co_return 1;
    }
    app::Session session = document->session();
    if (session.targets.size() != 2) {
        fail(QStringLiteral("the demo session does not have two targets"));
        co_return 1;
    }
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
    co_return 0;
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
    parser.addOption(screenshots);
    parser.addOption(seconds);
    parser.process(application);
    if (!parser.isSet(screenshots)) {
        fail(QStringLiteral("--screenshots DIR is required"));
        return 2;
    }
    const QDir out(parser.value(screenshots));
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
    QCoro::connect(render(window, servers, out, pointSeconds), &application, [&status](int rc) {
        status = rc;
        QCoreApplication::exit(rc);
    });
    QApplication::exec();
    return status;
}
