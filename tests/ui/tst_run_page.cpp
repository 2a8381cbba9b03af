// The Run page against the embedded servers: Start runs the sweep and the
// live charts follow it, Stop ends it and keeps what finished, Resume runs
// the rest, and starting again asks before results are thrown away.

#include "app/servers/echo_server.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/sweep_runner.h"
#include "engine/progress.h"
#include "tests/app/session_test_data.h"
#include "ui/common/chart_panel.h"
#include "ui/run/live_point_charts.h"
#include "ui/run/run_log_model.h"
#include "ui/run/run_page.h"
#include "ui_test_servers.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QChart>
#include <QElapsedTimer>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

using namespace loadscope;

namespace {

// A timed sweep: `seconds` per point, one level, one run per target.
app::Session timedSession(const test::UiHttpServers& servers, double seconds) {
    app::Session session = test::directVsProxy(servers);
    session.plan.concurrencyLevels = {4};
    session.plan.repetitions = 1;
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = seconds;
    return session;
}

QPushButton* button(const QWidget& page, const char* name) {
    return page.findChild<QPushButton*>(QString::fromLatin1(name));
}

QString statusText(const QWidget& page) {
    return page.findChild<QLabel*>(QStringLiteral("runStatus"))->text();
}

// True once the page holds the outcome of the sweep it started: the runner has
// stopped and the page gave Start back.
bool sweepEnded(const QWidget& page, const app::SweepRunner& runner, int timeoutMs) {
    QElapsedTimer waited;
    waited.start();
    while (runner.isRunning() || !button(page, "startButton")->isEnabled()) {
        if (waited.elapsed() > timeoutMs)
            return false;
        QTest::qWait(20);
    }
    return true;
}

QMessageBox* openQuestion(const QWidget& page) {
    auto* box = page.findChild<QMessageBox*>(QStringLiteral("discardResultsQuestion"));
    return box && box->isVisible() ? box : nullptr;
}

} // namespace

class TestRunPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void logModelPassesTheTester();
    void logNotesTellNoiseFromErrors();
    void buttonsFollowTheSession();
    void hintFollowsTheSession();
    void labSessionSaysBeforeStartWhereItLookedForTheCli();
    void liveChartsFollowSnapshots();
    void startRunsTheSweepWithLiveCharts();
    void stopEndsTheSweepAndResumeFinishesIt();
    void startingAgainAsksFirst();
    void failedPointIsLogged();
    void progressAfterStopCountsOnlyStoredPoints();
    void anotherSessionStartsWithAnEmptyRunPage();
    void tcpRrSpeaksOfTransactions();
    void timedPointKeepsItsTimeAxis();
    void legendTellsTheMedianFromTheTail();

private:
    std::unique_ptr<test::UiHttpServers> m_servers;
};

void TestRunPage::initTestCase() {
    m_servers = std::make_unique<test::UiHttpServers>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestRunPage::logModelPassesTheTester() {
    ui::RunLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const app::Session session = test::twoTargetSession();
    app::SweepPoint point{0, session.targets[0].id, 10, 0};
    model.appendFinished(point, 12, QStringLiteral("host"), Qt::blue, session.results[0]);
    point.index = 1;
    model.appendFailed(point, 12, QStringLiteral("nat"), Qt::red,
                       QStringLiteral("connection refused"));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, ui::RunLogModel::PointColumn).data().toString(),
             QStringLiteral("1 of 12"));
    QCOMPARE(model.index(0, ui::RunLogModel::RequestsPerSecondColumn).data().toString(),
             QStringLiteral("100"));
    QCOMPARE(model.index(1, ui::RunLogModel::NoteColumn).data().toString(),
             QStringLiteral("point failed: connection refused"));
    QVERIFY(!model.index(1, ui::RunLogModel::RequestsPerSecondColumn).data().isValid() ||
            model.index(1, ui::RunLogModel::RequestsPerSecondColumn).data().toString().isEmpty());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestRunPage::logNotesTellNoiseFromErrors() {
    ui::RunLogModel model;
    const app::Session session = test::twoTargetSession();
    app::PointResult noisy = session.results[0];
    noisy.firstError.clear();
    noisy.noise = QStringLiteral("other load 31 % of the machine");
    app::PointResult failing = noisy;
    failing.noise.clear();
    failing.failed = 1;
    failing.firstError = QStringLiteral("connection reset by peer");
    // A point whose network stack lost packets: a warning too, with what was lost and where.
    app::PointResult lossy = failing;
    lossy.failed = 0;
    lossy.firstError.clear();
    app::NamespaceCounters host;
    host.roles = {QStringLiteral("server host")};
    host.tcpRetransmits = 21;
    lossy.net = app::NetCounterWindow{{host}, std::nullopt};
    const app::SweepPoint point{0, session.targets[0].id, 10, 0};
    model.appendFinished(point, 2, QStringLiteral("host"), Qt::blue, noisy);
    model.appendFinished(point, 2, QStringLiteral("host"), Qt::blue, failing);
    model.appendFinished(point, 2, QStringLiteral("host"), Qt::blue, lossy);
    const QModelIndex networkNote = model.index(2, ui::RunLogModel::NoteColumn);
    QCOMPARE(networkNote.data().toString(),
             QStringLiteral("network: 21 TCP segments retransmitted (server host)"));
    QCOMPARE(networkNote.data(Qt::ToolTipRole).toString(), networkNote.data().toString());
    QCOMPARE(model.headerData(ui::RunLogModel::NoteColumn, Qt::Horizontal).toString(),
             QStringLiteral("Notes"));
    const QModelIndex noiseNote = model.index(0, ui::RunLogModel::NoteColumn);
    const QModelIndex errorNote = model.index(1, ui::RunLogModel::NoteColumn);
    QCOMPARE(noiseNote.data().toString(), QStringLiteral("noisy: other load 31 % of the machine"));
    QCOMPARE(errorNote.data().toString(), QStringLiteral("connection reset by peer"));
    // A failure reads as one; a noisy point is a warning in another colour.
    const QColor errorColour = errorNote.data(Qt::ForegroundRole).value<QBrush>().color();
    const QColor noiseColour = noiseNote.data(Qt::ForegroundRole).value<QBrush>().color();
    QVERIFY(errorColour.isValid() && noiseColour.isValid());
    QVERIFY(errorColour != noiseColour);
    QCOMPARE(networkNote.data(Qt::ForegroundRole).value<QBrush>().color(), noiseColour);
    QCOMPARE(errorColour, model.index(1, ui::RunLogModel::FailedColumn)
                              .data(Qt::ForegroundRole)
                              .value<QBrush>()
                              .color());
}

void TestRunPage::buttonsFollowTheSession() {
    app::SessionDocument document;
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    QVERIFY(!button(page, "startButton")->isEnabled()); // no targets
    QVERIFY(!button(page, "resumeButton")->isEnabled());
    QVERIFY(!button(page, "stopButton")->isEnabled());

    document.reset(test::twoTargetSession()); // every point done
    QVERIFY(button(page, "startButton")->isEnabled());
    QVERIFY(!button(page, "resumeButton")->isEnabled());

    app::Session partial = test::twoTargetSession();
    partial.results.pop_back();
    document.reset(partial);
    QVERIFY(button(page, "resumeButton")->isEnabled());
}

void TestRunPage::hintFollowsTheSession() {
    app::SessionDocument document;
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    auto* status = page.findChild<QLabel*>(QStringLiteral("runStatus"));
    QVERIFY(status);
    const QString noTargets = QStringLiteral("Add targets on the Targets page to run a sweep.");
    QCOMPARE(status->text(), noTargets);

    document.reset(test::twoTargetSession());
    QVERIFY(button(page, "startButton")->isEnabled());
    QVERIFY2(!status->text().contains(QStringLiteral("Add targets")), qPrintable(status->text()));

    app::Session badPlan = test::twoTargetSession();
    badPlan.plan.concurrencyLevels.clear();
    document.reset(badPlan);
    QVERIFY(!button(page, "startButton")->isEnabled());
    QCOMPARE(status->text(), app::validateSweepPlan(badPlan.plan).error().message);

    app::Session none = test::twoTargetSession();
    none.targets.clear();
    none.results.clear();
    document.reset(none);
    QCOMPARE(status->text(), noTargets);

    // A page made for a session that can run never shows the hint.
    document.reset(test::twoTargetSession());
    ui::RunPage fresh(&document, &runner);
    QVERIFY(fresh.findChild<QLabel*>(QStringLiteral("runStatus"))->text().isEmpty());
}

// A lab session needs loadscope-cli to build its lab: without one beside this
// program or on PATH, Start stays off and the page says where it looked, before
// anything runs; once there is one on PATH, Start is offered.
void TestRunPage::labSessionSaysBeforeStartWhereItLookedForTheCli() {
    const QString beside =
        QCoreApplication::applicationDirPath() + QStringLiteral("/loadscope-cli");
    QVERIFY2(!QFile::exists(beside), qPrintable(beside));
    QTemporaryDir path;
    QVERIFY(path.isValid());
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", path.path().toLocal8Bit());
    const auto restore = qScopeGuard([&oldPath] { qputenv("PATH", oldPath); });

    app::SessionDocument document;
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    auto lab = app::loadExampleSession(QStringLiteral("lab-tcp-rr"));
    QVERIFY(lab);
    document.reset(*lab);
    QVERIFY(!button(page, "startButton")->isEnabled());
    QCOMPARE(statusText(page),
             QStringLiteral("The lab cannot be started: loadscope-cli is not beside this program "
                            "(%1) nor on PATH (%2)")
                 .arg(beside, path.path()));

    QFile cli(path.filePath(QStringLiteral("loadscope-cli")));
    QVERIFY(cli.open(QIODevice::WriteOnly));
    cli.write("#!/bin/sh\nexit 2\n");
    cli.close();
    QVERIFY(cli.setPermissions(cli.permissions() | QFile::ExeOwner));
    document.reset(*lab);
    QVERIFY(button(page, "startButton")->isEnabled());
    QVERIFY2(statusText(page).isEmpty(), qPrintable(statusText(page)));
}

void TestRunPage::liveChartsFollowSnapshots() {
    ui::LivePointCharts charts;
    charts.startPoint(QStringLiteral("host at c=10"), Qt::blue, 2,
                      {QStringLiteral("Ops/s"), QStringLiteral("ops/s"), false});
    engine::Progress warming;
    warming.warmingUp = true;
    warming.intervalSeconds = 0.1;
    warming.intervalComplete = 50;
    charts.addSnapshot(warming); // not measured: not charted
    QCOMPARE(charts.requestsSeries()->count(), 0);

    for (int i = 1; i <= 3; ++i) {
        engine::Progress progress;
        progress.elapsedSeconds = 0.1 * i;
        progress.intervalSeconds = 0.1;
        progress.intervalComplete = uint64_t(100 * i);
        progress.intervalLatency.recordN(1'000'000, 98); // 1 ms
        progress.intervalLatency.recordN(5'000'000, 2);  // 5 ms
        charts.addSnapshot(progress);
    }
    const QList<QPointF> rates = charts.requestsSeries()->points();
    QCOMPARE(rates.size(), 3);
    QCOMPARE(rates[2], QPointF(0.3, 3000));
    QVERIFY(qAbs(charts.p50Series()->points().at(0).y() - 1.0) < 0.01); // histogram precision
    QVERIFY(qAbs(charts.p99Series()->points().at(0).y() - 5.0) < 0.01);
    QCOMPARE(charts.requestsSeries()->name(), QStringLiteral("Ops/s"));

    // A stream is charted by the bytes it moves between snapshots.
    charts.startPoint(QStringLiteral("stream"), Qt::red, 0,
                      {QStringLiteral("Throughput"), QStringLiteral("Mbit/s"), true});
    QCOMPARE(charts.requestsSeries()->count(), 0);
    for (int i = 1; i <= 3; ++i) {
        engine::Progress progress;
        progress.elapsedSeconds = 0.5 * i;
        progress.intervalSeconds = 0.5;
        progress.bytesSent = uint64_t(i) * 125'000'000; // 1000 Mbit per snapshot
        charts.addSnapshot(progress);
    }
    const QList<QPointF> throughput = charts.requestsSeries()->points();
    QCOMPARE(throughput.size(), 2);
    QCOMPARE(throughput[0], QPointF(1.0, 2000));
    QCOMPARE(charts.p99Series()->count(), 0);
}

void TestRunPage::startRunsTheSweepWithLiveCharts() {
    app::SessionDocument document;
    document.reset(timedSession(*m_servers, 0.8));
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.resize(1200, 800);
    page.show();
    QSignalSpy snapshots(&runner, &app::SweepRunner::progressAvailable);

    button(page, "startButton")->click();
    QVERIFY(!button(page, "startButton")->isEnabled());
    QVERIFY(!button(page, "resumeButton")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(page.liveCharts()->requestsSeries()->count() > 0, 15000);
    QVERIFY(button(page, "stopButton")->isEnabled());
    const QString pointText = page.findChild<QLabel*>(QStringLiteral("pointLabel"))->text();
    QVERIFY2(pointText.startsWith(QStringLiteral("Point 1 of 2: direct, c=4, run 1 of 1")),
             qPrintable(pointText));

    QVERIFY(sweepEnded(page, runner, 30000));
    QCOMPARE(statusText(page), QStringLiteral("Finished: 2 point(s) measured"));
    // One chart point per measured snapshot of the last point.
    QVERIFY(snapshots.count() >= 4);
    const QList<QPointF> rps = page.liveCharts()->requestsSeries()->points();
    QVERIFY(!rps.isEmpty());
    QVERIFY(std::any_of(rps.begin(), rps.end(), [](const QPointF& p) { return p.y() > 0; }));
    QVERIFY(page.liveCharts()->p99Series()->count() > 0);
    const QList<QPointF> p50 = page.liveCharts()->p50Series()->points();
    const QList<QPointF> p99 = page.liveCharts()->p99Series()->points();
    QCOMPARE(p50.size(), p99.size());
    for (qsizetype i = 0; i < p50.size(); ++i)
        QVERIFY(p50[i].y() <= p99[i].y());

    QCOMPARE(page.logModel()->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        const auto& entry = page.logModel()->entry(row);
        QVERIFY(entry.requestsPerSecond && *entry.requestsPerSecond > 0);
        QVERIFY(entry.complete > 0);
        QCOMPARE(entry.failed, uint64_t(0));
    }
    QCOMPARE(document.session().results.size(), size_t(2));
    auto* progress = page.findChild<QProgressBar*>(QStringLiteral("sweepProgress"));
    QCOMPARE(progress->value(), progress->maximum());
    QTRY_VERIFY(button(page, "startButton")->isEnabled());
    QVERIFY(!button(page, "stopButton")->isEnabled());
}

void TestRunPage::stopEndsTheSweepAndResumeFinishesIt() {
    app::SessionDocument document;
    document.reset(timedSession(*m_servers, 30));
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.show();

    button(page, "startButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(page.liveCharts()->requestsSeries()->count() >= 2, 15000);
    button(page, "stopButton")->click();
    QVERIFY(!button(page, "stopButton")->isEnabled());
    // The bound is loose on purpose; gui_responsiveness measures how fast.
    QVERIFY(sweepEnded(page, runner, 10000));
    QVERIFY(document.session().results.empty()); // the cancelled point is not stored
    QVERIFY(page.findChild<QLabel*>(QStringLiteral("runStatus"))
                ->text()
                .startsWith(QStringLiteral("Stopped")));
    QTRY_VERIFY(button(page, "startButton")->isEnabled());
    QVERIFY(!button(page, "resumeButton")->isEnabled()); // nothing done yet to resume from

    // A session with one point of two done: Resume runs only the other.
    app::Session partial = timedSession(*m_servers, 0.4);
    partial.targets = document.session().targets;
    partial.baselineTargetId = partial.targets[0].id;
    document.reset(partial);
    button(page, "startButton")->click();
    QVERIFY(sweepEnded(page, runner, 15000));
    partial.results = document.session().results;
    QCOMPARE(partial.results.size(), size_t(2));
    partial.results.pop_back();
    document.reset(partial);
    QTRY_VERIFY(button(page, "resumeButton")->isEnabled());
    const int logged = page.logModel()->rowCount();

    button(page, "resumeButton")->click();
    QVERIFY(sweepEnded(page, runner, 15000));
    QCOMPARE(statusText(page), QStringLiteral("Finished: 1 point(s) measured, 1 already done"));
    QCOMPARE(document.session().results.size(), size_t(2));
    QCOMPARE(page.logModel()->rowCount(), logged + 1); // a resume adds to the log
}

void TestRunPage::startingAgainAsksFirst() {
    app::SessionDocument document;
    app::Session session = timedSession(*m_servers, 0.3);
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.show();
    button(page, "startButton")->click();
    QVERIFY(!openQuestion(page)); // nothing to lose yet
    QVERIFY(sweepEnded(page, runner, 15000));
    QTRY_VERIFY(button(page, "startButton")->isEnabled());
    const std::vector<app::PointResult> first = document.session().results;
    QCOMPARE(first.size(), size_t(2));

    // Cancel keeps everything.
    button(page, "startButton")->click();
    QTRY_VERIFY(openQuestion(page));
    QVERIFY(!button(page, "startButton")->isEnabled());
    openQuestion(page)->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(button(page, "startButton")->isEnabled());
    QVERIFY(!runner.isRunning());
    QCOMPARE(document.session().results, first);

    // Discarding runs every point again.
    button(page, "startButton")->click();
    QTRY_VERIFY(openQuestion(page));
    QMessageBox* box = openQuestion(page);
    QAbstractButton* discard = nullptr;
    for (QAbstractButton* candidate : box->buttons()) {
        if (box->buttonRole(candidate) == QMessageBox::DestructiveRole)
            discard = candidate;
    }
    QVERIFY(discard);
    discard->click();
    QVERIFY(!button(page, "startButton")->isEnabled());
    QVERIFY(sweepEnded(page, runner, 15000));
    QCOMPARE(statusText(page), QStringLiteral("Finished: 2 point(s) measured"));
    QCOMPARE(document.session().results.size(), size_t(2));
    QVERIFY(document.session().results != first);
}

void TestRunPage::failedPointIsLogged() {
    // A target nobody listens on fails its probe: the sweep fails and says why.
    app::Session session = timedSession(*m_servers, 0.3);
    session.targets[1].http.url = QStringLiteral("http://127.0.0.1:1/");
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    button(page, "startButton")->click();
    QVERIFY(sweepEnded(page, runner, 15000));
    const QString status = statusText(page);
    QVERIFY2(status.startsWith(QStringLiteral("Sweep failed")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("proxy")), qPrintable(status));
    QTRY_VERIFY(button(page, "startButton")->isEnabled());
}

// Stopped in the middle of the second of three points: the bar shows the one point stored,
// not a share of the one cancelled.
void TestRunPage::progressAfterStopCountsOnlyStoredPoints() {
    // Points long enough that a loaded machine still stops the second one in its middle.
    app::Session session = timedSession(*m_servers, 2.0);
    session.plan.concurrencyLevels = {1, 4};
    session.targets.pop_back(); // direct only: points c=1, c=4
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.show();
    QSignalSpy snapshots(&runner, &app::SweepRunner::progressAvailable);
    button(page, "startButton")->click();
    // Well into the second point: its share of the bar would be a good part of it.
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(snapshots.begin(), snapshots.end(),
                    [](const QList<QVariant>& args) {
                        const auto point = args.at(0).value<app::SweepPoint>();
                        const auto progress =
                            args.at(1).value<std::shared_ptr<const engine::Progress>>();
                        return point.index == 1 && progress && !progress->warmingUp &&
                               progress->elapsedSeconds > 0.6;
                    }),
        15000);
    auto* progress = page.findChild<QProgressBar*>(QStringLiteral("sweepProgress"));
    QVERIFY(progress->value() > progress->maximum() / 2 + progress->maximum() / 10);
    button(page, "stopButton")->click();
    QVERIFY(sweepEnded(page, runner, 10000));
    QCOMPARE(document.session().results.size(), size_t(1));
    QCOMPARE(progress->value(), progress->maximum() / 2);
    QCOMPARE(statusText(page), QStringLiteral("Stopped after 1 point(s); Resume runs the rest."));
    QVERIFY(button(page, "resumeButton")->isEnabled());
}

// What the Run page shows after a stopped sweep belongs to that session: another one opened
// shows none of its log, charts, words or Resume.
void TestRunPage::anotherSessionStartsWithAnEmptyRunPage() {
    // The second point long enough to be stopped in its middle on a loaded machine.
    app::Session session = timedSession(*m_servers, 1.5);
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.show();
    QSignalSpy finished(&runner, &app::SweepRunner::pointFinished);
    button(page, "startButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(
        finished.count() >= 1 && page.liveCharts()->requestsSeries()->count() > 0, 15000);
    button(page, "stopButton")->click();
    QVERIFY(sweepEnded(page, runner, 10000));
    QVERIFY(page.logModel()->rowCount() >= 1);
    QVERIFY(statusText(page).startsWith(QStringLiteral("Stopped")));

    // Another session with the same targets, one point of two done: its own sweep to resume.
    app::Session other = session;
    other.name = QStringLiteral("another");
    other.results = {document.session().results.front()};
    other.results.front().repetition = 0;
    document.reset(other);
    QCOMPARE(page.logModel()->rowCount(), 0);
    QCOMPARE(statusText(page), QString());
    QCOMPARE(page.findChild<QLabel*>(QStringLiteral("pointLabel"))->text(),
             QStringLiteral("No sweep running"));
    QCOMPARE(page.findChild<QProgressBar*>(QStringLiteral("sweepProgress"))->value(), 0);
    QCOMPARE(page.liveCharts()->requestsSeries()->count(), 0);
    QCOMPARE(page.liveCharts()->p99Series()->count(), 0);
    QVERIFY(button(page, "resumeButton")->isEnabled());

    // And one with nothing run: nothing to resume.
    other.results.clear();
    document.reset(other);
    QVERIFY(!button(page, "resumeButton")->isEnabled());
    QCOMPARE(statusText(page), QString());
}

// netperf's words for a TCP_RR sweep throughout: transactions, never requests.
void TestRunPage::tcpRrSpeaksOfTransactions() {
    app::EchoServerConfig config;
    config.threads = 1;
    app::EchoServer echo(config);
    const auto started = echo.start();
    QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
    app::Session session;
    app::Target rr = app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0);
    rr.protocol = app::TargetProtocol::TcpRr;
    rr.address = QStringLiteral("127.0.0.1:%1").arg(echo.port());
    session.targets = {rr};
    session.plan.concurrencyLevels = {2};
    session.plan.repetitions = 1;
    session.plan.threads = 1;
    session.plan.durationSeconds = 1.0;
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    ui::RunPage page(&document, &runner);
    page.show();
    const QString rate = QStringLiteral("Transactions/s");
    QCOMPARE(page.logModel()
                 ->headerData(ui::RunLogModel::RequestsPerSecondColumn, Qt::Horizontal)
                 .toString(),
             rate);
    QCOMPARE(page.liveCharts()->requestsSeries()->name(), rate);

    QStringList said;
    QElapsedTimer waited;
    waited.start();
    button(page, "startButton")->click();
    while ((runner.isRunning() || !button(page, "startButton")->isEnabled()) &&
           waited.elapsed() < 15000) {
        said << statusText(page);
        QTest::qWait(20);
    }
    QVERIFY(!runner.isRunning());
    QVERIFY2(said.filter(QStringLiteral("Measuring")).size() > 0, qPrintable(said.join(u'|')));
    for (const QString& line : said.filter(QStringLiteral("Measuring")))
        QVERIFY2(line.contains(QStringLiteral("transactions")) &&
                     !line.contains(QStringLiteral("requests")),
                 qPrintable(line));
    QCOMPARE(page.liveCharts()->requestsSeries()->name(), rate);
    QVERIFY(page.liveCharts()->panels().at(0)->chart()->title().startsWith(rate));
    echo.stop();
}

// A timed point's last snapshot comes a moment after its end: the axis stays at the point's
// length instead of doubling and leaving the data on its first half.
void TestRunPage::timedPointKeepsItsTimeAxis() {
    ui::LivePointCharts charts;
    charts.startPoint(QStringLiteral("host at c=10"), Qt::blue, 2,
                      {QStringLiteral("Requests/s"), QStringLiteral("req/s"), false});
    for (const double t : {0.5, 1.0, 1.5, 2.0, 2.02}) {
        engine::Progress progress;
        progress.elapsedSeconds = t;
        progress.targetSeconds = 2;
        progress.intervalSeconds = 0.5;
        progress.intervalComplete = 500;
        progress.intervalLatency.recordN(1'000'000, 10);
        charts.addSnapshot(progress);
    }
    const auto* time =
        qobject_cast<QValueAxis*>(charts.panels().at(0)->chart()->axes(Qt::Horizontal).first());
    QVERIFY(time);
    QCOMPARE(time->max(), 2.0);
    QCOMPARE(charts.requestsSeries()->points().last().x(), 2.02);
}

// The legend draws a line's swatch in its colour alone, without its dashes: the tail must
// have a hue of its own beside the median's, whatever the target's colour.
void TestRunPage::legendTellsTheMedianFromTheTail() {
    ui::LivePointCharts charts;
    for (const QString& colour : app::defaultTargetColours()) {
        charts.startPoint(QStringLiteral("point"), QColor::fromString(colour), 2,
                          {QStringLiteral("Requests/s"), QStringLiteral("req/s"), false});
        QChart* latency = charts.panels().at(1)->chart();
        const QList<QLegendMarker*> p50 = latency->legend()->markers(charts.p50Series());
        const QList<QLegendMarker*> p99 = latency->legend()->markers(charts.p99Series());
        QCOMPARE(p50.size(), 1);
        QCOMPARE(p99.size(), 1);
        const QColor median = p50.front()->brush().color().toHsv();
        const QColor tail = p99.front()->brush().color().toHsv();
        const int hueApart = std::abs(median.hsvHue() - tail.hsvHue());
        QVERIFY2(std::min(hueApart, 360 - hueApart) >= 60,
                 qPrintable(
                     QStringLiteral("%1: p50 %2, p99 %3").arg(colour, median.name(), tail.name())));
    }
}

QTEST_MAIN(TestRunPage)
#include "tst_run_page.moc"
