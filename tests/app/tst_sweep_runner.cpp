// SweepRunner against the embedded HTTP server and userland proxy: order,
// storage, cancel, resume, responsiveness. Failing targets and the other
// protocols' targets are tst_sweep_targets'.
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/sweep_runner.h"
#include "engine/http_protocol.h"
#include "sweep_run_to_end.h"
#include "sweep_test_session.h"
#include "tests/app/result_message.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <optional>

using namespace loadscope;
using app::SweepOutcome;
using app::SweepPoint;
using test::runToEnd;

namespace {

std::vector<SweepPoint> startedPoints(const QSignalSpy& spy) {
    std::vector<SweepPoint> points;
    for (const QList<QVariant>& arguments : spy)
        points.push_back(arguments.at(0).value<SweepPoint>());
    return points;
}

app::PointResult fakeResult(const SweepPoint& point, bool cancelled = false) {
    app::PointResult result;
    result.targetId = point.targetId;
    result.concurrency = point.concurrency;
    result.repetition = point.repetition;
    result.source.tool = QStringLiteral("earlier run");
    result.complete = 1234;
    result.durationSeconds = 1;
    result.cancelled = cancelled;
    return result;
}

} // namespace

class TestSweepRunner : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void sweepRunsEveryPointInterleaved();
    void progressIsBatchedAndEventLoopStaysResponsive();
    void cancelMidSweepKeepsFinishedPointsAndFile();
    void cancelDuringPauseEndsAtOnce();
    void resumeRunsOnlyMissingPoints();
    void rateSweepStoresFixedRateResultsAtTheirLevels();
    void sessionLockedByAnotherSweepIsRefused();
    void destroyingRunnerMidPointStopsTheEngine();

private:
    std::unique_ptr<test::HttpPair> m_servers;
};

void TestSweepRunner::initTestCase() {
    m_servers = std::make_unique<test::HttpPair>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestSweepRunner::cleanupTestCase() {
    m_servers.reset();
}

void TestSweepRunner::sweepRunsEveryPointInterleaved() {
    app::SessionDocument document;
    document.reset(test::directVsProxy(*m_servers));
    const app::Session& session = document.session();
    const QUuid direct = session.targets[0].id;
    const QUuid proxy = session.targets[1].id;
    app::SweepRunner runner(&document);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    QSignalSpy finished(&runner, &app::SweepRunner::pointFinished);
    QSignalSpy probed(&runner, &app::SweepRunner::probeFinished);

    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QCOMPARE(outcome.pointCount, 8);
    QCOMPARE(outcome.pointsRun, 8);
    QCOMPARE(outcome.pointsSkipped, 0);

    // At each level, repetition by repetition, every target once.
    struct Expected {
        QUuid target;
        int concurrency;
        int repetition;
    };
    const std::vector<Expected> order{{direct, 1, 0}, {proxy, 1, 0}, {direct, 1, 1}, {proxy, 1, 1},
                                      {direct, 4, 0}, {proxy, 4, 0}, {direct, 4, 1}, {proxy, 4, 1}};
    const std::vector<SweepPoint> points = startedPoints(started);
    QCOMPARE(points.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        QCOMPARE(points[i].index, int(i));
        QCOMPARE(points[i].targetId, order[i].target);
        QCOMPARE(points[i].concurrency, order[i].concurrency);
        QCOMPARE(points[i].repetition, order[i].repetition);
        QCOMPARE(started.at(int(i)).at(1).toInt(), 8);
    }
    QCOMPARE(finished.size(), 8);

    QCOMPARE(session.results.size(), size_t(8));
    for (const Expected& e : order) {
        const app::PointResult* result = session.findResult(e.target, e.concurrency, e.repetition);
        QVERIFY(result);
        QCOMPARE(result->complete, uint64_t(300));
        QCOMPARE(result->failed, uint64_t(0));
        QVERIFY(!result->cancelled);
        QCOMPARE(result->documentLength, int64_t(4897));
        QVERIFY(!result->totalHistogram.isEmpty());
        QVERIFY(result->environment.startedAt.isValid());
        QVERIFY(!result->environment.hostName.isEmpty());
        QVERIFY(result->environment.kernel.startsWith(QStringLiteral("linux")));
        QVERIFY(result->environment.cores > 0);
        QCOMPARE(result->environment.loadscopeVersion, QStringLiteral(LOADSCOPE_VERSION));
        QVERIFY(result->environment.threadPlacement.startsWith(QStringLiteral("ran on CPU")));
        if (QFile::exists(QStringLiteral("/proc/cpuinfo")))
            QVERIFY(!result->environment.cpuModel.isEmpty());
    }
    // Both targets were probed, in order, through their own paths.
    QCOMPARE(probed.size(), 2);
    QCOMPARE(probed.at(0).at(0).value<QUuid>(), direct);
    QCOMPARE(probed.at(1).at(0).value<QUuid>(), proxy);
    for (const QList<QVariant>& arguments : probed) {
        const auto result = arguments.at(1).value<app::ProbeResult>();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.statusCode, 200);
        QCOMPARE(result.documentLength, qint64(4897));
        QCOMPARE(result.serverSoftware, QStringLiteral("loadscope"));
    }
    QVERIFY(!runner.isRunning());
}

void TestSweepRunner::progressIsBatchedAndEventLoopStaysResponsive() {
    app::Session session = test::directVsProxy(*m_servers);
    session.targets.pop_back();
    session.plan.concurrencyLevels = {2};
    session.plan.repetitions = 1;
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1.0;
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QSignalSpy progress(&runner, &app::SweepRunner::progressAvailable);

    // A timer on the same thread: if the runner blocked, the gaps would show it.
    QTimer ticker;
    QElapsedTimer sinceTick;
    qint64 longestGapMs = 0;
    int ticks = 0;
    connect(&ticker, &QTimer::timeout, this, [&] {
        if (ticks++ > 0)
            longestGapMs = std::max(longestGapMs, sinceTick.elapsed());
        sinceTick.start();
    });
    ticker.start(10);
    const SweepOutcome outcome = runToEnd(runner);
    ticker.stop();
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));

    QVERIFY2(ticks >= 30, qPrintable(QString::number(ticks)));
    QVERIFY2(longestGapMs < 500, qPrintable(QString::number(longestGapMs)));
    // About ten snapshots a second, not one per request.
    const app::PointResult& result = document.session().results.front();
    QVERIFY(result.complete > 100);
    QVERIFY2(progress.size() >= 5 && progress.size() <= 25,
             qPrintable(QString::number(progress.size())));
    const auto last = progress.last().at(1).value<std::shared_ptr<const engine::Progress>>();
    QVERIFY(last);
    QVERIFY(last->complete > 0);
}

void TestSweepRunner::cancelMidSweepKeepsFinishedPointsAndFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("cancel.loadscope"));
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 0.4;
    app::SessionDocument document;
    document.reset(session);
    QVERIFY(document.saveAs(path));

    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QElapsedTimer sinceCancel;
    connect(&runner, &app::SweepRunner::pointStarted, this, [&](const SweepPoint& point) {
        if (point.index == 3)
            QTimer::singleShot(150, &runner, [&] {
                sinceCancel.start();
                runner.cancel();
            });
    });
    QSignalSpy finishedPoints(&runner, &app::SweepRunner::pointFinished);
    const SweepOutcome outcome = runToEnd(runner);
    const qint64 cancelMs = sinceCancel.elapsed();

    QVERIFY2(outcome.status == SweepOutcome::Status::Cancelled, qPrintable(outcome.error));
    QVERIFY2(cancelMs < 1000, qPrintable(QString::number(cancelMs)));
    QCOMPARE(outcome.pointsRun, 3);
    QCOMPARE(finishedPoints.size(), 3);
    QCOMPARE(document.session().results.size(), size_t(3));
    QCOMPARE(app::missingPoints(document.session()).size(), size_t(5));
    for (const app::PointResult& result : document.session().results)
        QVERIFY(!result.cancelled);

    // The file on disk is whole and holds exactly the finished points.
    const auto saved = app::loadSessionFile(path);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(saved->results, document.session().results);
    QVERIFY(!runner.isRunning());
}

void TestSweepRunner::cancelDuringPauseEndsAtOnce() {
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.pauseSeconds = 30;
    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QElapsedTimer sinceCancel;
    connect(&runner, &app::SweepRunner::pointFinished, this, [&] {
        QTimer::singleShot(50, &runner, [&] {
            sinceCancel.start();
            runner.cancel();
        });
    });
    const SweepOutcome outcome = runToEnd(runner, 20'000);
    QVERIFY2(outcome.status == SweepOutcome::Status::Cancelled, qPrintable(outcome.error));
    QVERIFY2(sinceCancel.elapsed() < 1000, qPrintable(QString::number(sinceCancel.elapsed())));
    QCOMPARE(document.session().results.size(), size_t(1));
}

void TestSweepRunner::resumeRunsOnlyMissingPoints() {
    app::Session session = test::directVsProxy(*m_servers);
    const std::vector<SweepPoint> all = app::sweepPoints(session);
    QCOMPARE(all.size(), size_t(8));
    // Three points done by an earlier run, and one it cancelled (not done).
    for (int i = 0; i < 3; ++i)
        session.putResult(fakeResult(all[size_t(i)]));
    session.putResult(fakeResult(all[4], true));
    app::SessionDocument document;
    document.reset(session);

    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QCOMPARE(outcome.pointsSkipped, 3);
    QCOMPARE(outcome.pointsRun, 5);

    std::vector<int> indexes;
    for (const SweepPoint& point : startedPoints(started))
        indexes.push_back(point.index);
    QCOMPARE(indexes, (std::vector<int>{3, 4, 5, 6, 7}));
    const app::Session& resumed = document.session();
    QCOMPARE(resumed.results.size(), size_t(8));
    QVERIFY(app::missingPoints(resumed).empty());
    for (int i = 0; i < 3; ++i) {
        const SweepPoint& point = all[size_t(i)];
        const auto* kept = resumed.findResult(point.targetId, point.concurrency, point.repetition);
        QVERIFY(kept);
        QCOMPARE(*kept, fakeResult(point)); // untouched, not measured again
    }
    const auto* redone = resumed.findResult(all[4].targetId, all[4].concurrency, all[4].repetition);
    QVERIFY(redone && !redone->cancelled);
    QCOMPARE(redone->complete, uint64_t(300));

    // Nothing left: a further run starts no point at all.
    started.clear();
    const SweepOutcome again = runToEnd(runner);
    QVERIFY(again.status == SweepOutcome::Status::Completed);
    QCOMPARE(again.pointsSkipped, 8);
    QCOMPARE(started.size(), 0);
}

void TestSweepRunner::rateSweepStoresFixedRateResultsAtTheirLevels() {
    app::Session session = test::directVsProxy(*m_servers, 100);
    session.plan.levelKind = app::SweepLevelKind::Rate;
    session.plan.rateLevels = {400, 800};
    session.plan.rateConnections = 2;
    session.plan.repetitions = 1;
    const std::vector<SweepPoint> all = app::sweepPoints(session);
    QCOMPARE(all.size(), size_t(4));
    // Done by an earlier run: direct at 400 req/s. Its closed-loop result at
    // the same connection count fills no rate point.
    app::PointResult earlier = fakeResult(all[0]);
    earlier.loadModel = app::LoadModel::FixedRate;
    earlier.offeredRate = 400;
    session.putResult(earlier);
    session.putResult(fakeResult(SweepPoint{0, all[1].targetId, 2, 0, 0}));
    app::SessionDocument document;
    document.reset(session);

    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    const SweepOutcome outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QCOMPARE(outcome.pointsSkipped, 1);
    QCOMPARE(outcome.pointsRun, 3);
    std::vector<double> rates;
    for (const SweepPoint& point : startedPoints(started))
        rates.push_back(point.rate);
    QCOMPARE(rates, (std::vector<double>{400, 800, 800}));
    const app::Session& done = document.session();
    QCOMPARE(done.results.size(), size_t(5));
    QVERIFY(app::missingPoints(done).empty());
    for (const SweepPoint& point : all) {
        const auto* result =
            done.findResult(point.targetId, point.concurrency, point.repetition, point.rate);
        QVERIFY(result);
        QCOMPARE(result->loadModel, app::LoadModel::FixedRate);
        QCOMPARE(result->offeredRate, std::optional<double>(point.rate));
        QCOMPARE(result->concurrency, 2);
    }
}

void TestSweepRunner::sessionLockedByAnotherSweepIsRefused() {
    // The window's sweep: another sweep (here a lock this test holds) has
    // the file; the runner refuses at once and saves nothing.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("locked.loadscope"));
    QVERIFY(app::saveSessionFile(test::directVsProxy(*m_servers), path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray before = file.readAll();
    file.close();
    app::SessionDocument document;
    QVERIFY(document.open(path));
    auto other = app::SessionLock::acquire(path);
    QVERIFY(other);

    app::SweepRunner runner(&document);
    runner.setProbeEnabled(false);
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    SweepOutcome outcome = runToEnd(runner);
    QCOMPARE(outcome.status, SweepOutcome::Status::Failed);
    QVERIFY2(outcome.error.contains(QStringLiteral("another sweep is running on this session")),
             qPrintable(outcome.error));
    QCOMPARE(started.size(), 0);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), before);
    file.close();

    // Released, the same runner sweeps and holds the lock only while it runs.
    other->reset();
    outcome = runToEnd(runner);
    QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QVERIFY(app::SessionLock::acquire(path));
}

void TestSweepRunner::destroyingRunnerMidPointStopsTheEngine() {
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 30;
    app::SessionDocument document;
    document.reset(session);
    auto* runner = new app::SweepRunner(&document);
    runner->setProbeEnabled(false);
    QSignalSpy started(runner, &app::SweepRunner::pointStarted);
    std::optional<QCoro::Task<SweepOutcome>> task;
    task.emplace(runner->run());
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(m_servers->httpActiveConnections() > 0, 5000);
    delete runner; // a window closed in the middle of a point
    // The engine stops as on cancel, and nothing it or the coroutine does
    // afterwards touches the dead runner (ASan builds would say so).
    QTRY_COMPARE_WITH_TIMEOUT(m_servers->httpActiveConnections(), uint64_t(0), 2000);
    QTest::qWait(200);
    task.reset();
    QVERIFY(document.session().results.empty());
}

QTEST_GUILESS_MAIN(TestSweepRunner)
#include "tst_sweep_runner.moc"
