// The session model: sweep point order, resume bookkeeping, result keys,
// conversion of engine results, and the document the window edits.
#include "app/session/session_document.h"
#include "engine/run_result.h"
#include "session_test_data.h"

#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <memory>

using namespace loadscope;
using namespace loadscope::app;

namespace {

// "t0@1#0" for target index 0, concurrency 1, repetition 0: order at a glance.
QStringList describe(const std::vector<SweepPoint>& points, const std::vector<Target>& targets) {
    QStringList out;
    for (const SweepPoint& point : points) {
        int index = -1;
        for (size_t i = 0; i < targets.size(); ++i) {
            if (targets[i].id == point.targetId)
                index = int(i);
        }
        out << QStringLiteral("t%1@%2#%3").arg(index).arg(point.concurrency).arg(point.repetition);
    }
    return out;
}

} // namespace

class TestSessionModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sweepOrder_data();
    void sweepOrder();
    void pointIndicesFollowExecutionOrder();
    void missingPointsForResume();
    void putResultReplacesTheSameKey();
    void nextRepetitionFillsGaps();
    void removeTargetTakesItsResults();
    void planValidation_data();
    void planValidation();
    void modeAndProtocolIds();
    void pointResultFromRun();
    void documentSignalsAndModifiedFlag();
    void sharedSessionIsTheStateItWasTakenFrom();
};

void TestSessionModel::sweepOrder_data() {
    QTest::addColumn<int>("order");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("interleaved") << int(SweepOrder::Interleaved)
                                 << QStringList{
                                        QStringLiteral("t0@1#0"),  QStringLiteral("t1@1#0"),
                                        QStringLiteral("t0@1#1"),  QStringLiteral("t1@1#1"),
                                        QStringLiteral("t0@10#0"), QStringLiteral("t1@10#0"),
                                        QStringLiteral("t0@10#1"), QStringLiteral("t1@10#1")};
    QTest::newRow("sequential") << int(SweepOrder::Sequential)
                                << QStringList{
                                       QStringLiteral("t0@1#0"),  QStringLiteral("t0@1#1"),
                                       QStringLiteral("t0@10#0"), QStringLiteral("t0@10#1"),
                                       QStringLiteral("t1@1#0"),  QStringLiteral("t1@1#1"),
                                       QStringLiteral("t1@10#0"), QStringLiteral("t1@10#1")};
}

void TestSessionModel::sweepOrder() {
    QFETCH(int, order);
    QFETCH(QStringList, expected);
    SweepPlan plan;
    plan.concurrencyLevels = {1, 10};
    plan.repetitions = 2;
    plan.order = SweepOrder(order);
    const std::vector<Target> targets{makeTarget(QStringLiteral("a"), DeploymentMode::Host, 0),
                                      makeTarget(QStringLiteral("b"), DeploymentMode::Macvlan, 1)};
    QCOMPARE(describe(sweepPoints(plan, targets), targets), expected);
}

void TestSessionModel::pointIndicesFollowExecutionOrder() {
    const Session session = test::twoTargetSession();
    const std::vector<SweepPoint> points = sweepPoints(session);
    QCOMPARE(points.size(), size_t(2 * 2 * 3));
    for (size_t i = 0; i < points.size(); ++i)
        QCOMPARE(points[i].index, int(i));
}

void TestSessionModel::missingPointsForResume() {
    Session session = test::twoTargetSession();
    QVERIFY(missingPoints(session).empty());

    // An interrupted sweep: the last three points never ran, one was cancelled.
    const std::vector<SweepPoint> all = sweepPoints(session);
    for (size_t i = all.size() - 3; i < all.size(); ++i) {
        std::erase_if(session.results, [&](const PointResult& r) {
            return r.targetId == all[i].targetId && r.concurrency == all[i].concurrency &&
                   r.repetition == all[i].repetition;
        });
    }
    PointResult* cancelled = nullptr;
    for (PointResult& r : session.results) {
        if (r.targetId == all[2].targetId && r.concurrency == all[2].concurrency &&
            r.repetition == all[2].repetition)
            cancelled = &r;
    }
    QVERIFY(cancelled);
    cancelled->cancelled = true;

    const std::vector<SweepPoint> missing = missingPoints(session);
    const std::vector<SweepPoint> expected{all[2], all[9], all[10], all[11]};
    QCOMPARE(missing, expected);
    QVERIFY(!isPointDone(session, all[2]));
    QVERIFY(isPointDone(session, all[3]));

    // Raising the repetitions plans more points; the old ones stay done.
    session.plan.repetitions = 4;
    QCOMPARE(missingPoints(session).size(), expected.size() + 2 * 2);
}

void TestSessionModel::putResultReplacesTheSameKey() {
    Session session = test::twoTargetSession();
    const size_t before = session.results.size();
    PointResult again = test::measuredResult(session.targets[1].id, 10, 2, 4242, 1.0, {{1000, 1}});
    session.putResult(again);
    QCOMPARE(session.results.size(), before);
    QCOMPARE(session.findResult(session.targets[1].id, 10, 2)->complete, uint64_t(4242));

    session.putResult(test::measuredResult(session.targets[1].id, 100, 0, 1, 1.0, {{1000, 1}}));
    QCOMPARE(session.results.size(), before + 1);
}

void TestSessionModel::nextRepetitionFillsGaps() {
    Session session = test::twoTargetSession();
    const QUuid host = session.targets[0].id;
    QCOMPARE(session.nextRepetition(host, 1), 3);
    QCOMPARE(session.nextRepetition(host, 50), 0);
    std::erase_if(session.results, [&](const PointResult& r) {
        return r.targetId == host && r.concurrency == 1 && r.repetition == 1;
    });
    QCOMPARE(session.nextRepetition(host, 1), 1);
}

void TestSessionModel::removeTargetTakesItsResults() {
    Session session = test::twoTargetSession();
    const QUuid host = session.targets[0].id;
    QVERIFY(session.removeTarget(host));
    QCOMPARE(session.targets.size(), size_t(1));
    QCOMPARE(session.results.size(), size_t(6));
    QCOMPARE(session.baseline()->id, session.targets[0].id);
    QVERIFY(!session.removeTarget(host));
}

void TestSessionModel::planValidation_data() {
    QTest::addColumn<QList<int>>("levels");
    QTest::addColumn<int>("repetitions");
    QTest::addColumn<double>("duration");
    QTest::addColumn<QString>("problem");
    QTest::newRow("ok") << QList<int>{1, 10, 100} << 3 << 2.0 << QString();
    QTest::newRow("no levels") << QList<int>{} << 3 << 2.0 << QStringLiteral("no concurrency");
    QTest::newRow("level twice") << QList<int>{1, 10, 1} << 3 << 2.0
                                 << QStringLiteral("concurrency 1 is listed twice");
    QTest::newRow("level zero") << QList<int>{0} << 3 << 2.0 << QStringLiteral("out of range");
    QTest::newRow("no repetitions") << QList<int>{1} << 0 << 2.0 << QStringLiteral("repetitions");
    QTest::newRow("zero duration") << QList<int>{1} << 3 << 0.0 << QStringLiteral("duration");
}

void TestSessionModel::planValidation() {
    QFETCH(QList<int>, levels);
    QFETCH(int, repetitions);
    QFETCH(double, duration);
    QFETCH(QString, problem);
    SweepPlan plan;
    plan.concurrencyLevels.assign(levels.begin(), levels.end());
    plan.repetitions = repetitions;
    plan.durationSeconds = duration;
    const auto checked = validateSweepPlan(plan);
    if (problem.isEmpty()) {
        QVERIFY2(checked, qPrintable(checked.error().message));
    } else {
        QVERIFY(!checked);
        QVERIFY2(checked.error().message.contains(problem), qPrintable(checked.error().message));
    }
}

void TestSessionModel::modeAndProtocolIds() {
    for (DeploymentMode mode : deploymentModes())
        QCOMPARE(deploymentModeFromId(deploymentModeId(mode)), std::optional(mode));
    QCOMPARE(deploymentModeId(DeploymentMode::ContainerNat), QStringLiteral("container-nat"));
    QVERIFY(!deploymentModeFromId(u"custom"));
    for (TargetProtocol protocol : targetProtocols())
        QCOMPARE(targetProtocolFromId(targetProtocolId(protocol)), std::optional(protocol));

    Target target = makeTarget(QString(), DeploymentMode::Custom, 9);
    target.customMode = QStringLiteral("  k8s pod network ");
    QCOMPARE(target.modeLabel(), QStringLiteral("k8s pod network"));
    QCOMPARE(target.displayName(), QStringLiteral("k8s pod network"));
    QVERIFY(isValidColour(target.colour));
    QVERIFY(!isValidColour(QStringLiteral("#12345g")));
}

void TestSessionModel::pointResultFromRun() {
    engine::RunResult run;
    run.complete = 1000;
    run.failed = 3;
    run.errors[size_t(engine::ErrorClass::Receive)] = 3;
    run.bytesTotal = 5'141'000;
    run.bytesSent = 80'000;
    run.durationSeconds = 2.0;
    run.concurrency = 10;
    run.threads = 2;
    run.serverSoftware = "nginx/1.22.1";
    run.documentLength = 4897;
    run.threadCpus = {0, 1};
    run.pinned = true;
    run.total.recordN(1'000'000, 990); // 1 ms
    run.total.recordN(20'000'000, 10); // 20 ms
    run.connect.recordN(50'000, 1000);
    engine::OperationStats get;
    get.name = "get";
    get.latency.recordN(500'000, 10);
    run.operations.push_back(get);

    RunEnvironment environment;
    environment.hostName = QStringLiteral("bench-1");
    const QUuid target = QUuid::createUuid();
    const PointResult result = app::pointResultFromRun(run, target, 10, 2, environment);
    QCOMPARE(result.targetId, target);
    QCOMPARE(result.concurrency, 10);
    QCOMPARE(result.repetition, 2);
    QCOMPARE(result.source.kind, ResultSource::Kind::Measured);
    QCOMPARE(result.environment.threadPlacement, QStringLiteral("pinned to CPUs 0,1"));
    QCOMPARE(result.serverSoftware, QStringLiteral("nginx/1.22.1"));
    // Over the 997 successful responses: the 3 failures raise no rate.
    QCOMPARE(result.requestsPerSecond(), 498.5);
    QCOMPARE(result.transferRateKiBps(), 5'141'000 / 1024.0 / 2.0);
    QCOMPARE(result.timePerRequestMs(), 10 * 2000.0 / 997);
    QCOMPARE(result.timePerRequestAcrossMs(), 2000.0 / 997);
    QCOMPARE(result.throughputMbitps(), (5'141'000 + 80'000) * 8 / 1e6 / 2.0);

    // The summary carries the standard percentiles, within the histogram's precision.
    QCOMPARE(result.total.percentilesMs.size(), standardPercentiles().size());
    QVERIFY(qAbs(*result.total.percentile(50) - 1.0) < 1.0 / 1000);
    QVERIFY(qAbs(*result.total.percentile(99.9) - 20.0) < 20.0 / 1000);
    QCOMPARE(*result.total.maxMs, 20.0);
    QCOMPARE(*result.total.minMs, 1.0);
    QVERIFY(qAbs(*result.total.meanMs - 1.19) < 1e-9);
    QCOMPARE(summarize(result.totalHistogram), result.total);
    QVERIFY(qAbs(result.perOperation.at(QStringLiteral("get")).percentile(50).value() - 0.5) <
            0.5 / 1000);
    QVERIFY(summarize(QByteArray("not a histogram")).isEmpty());
}

void TestSessionModel::documentSignalsAndModifiedFlag() {
    SessionDocument document;
    QSignalSpy sessionSpy(&document, &SessionDocument::sessionChanged);
    QSignalSpy resultsSpy(&document, &SessionDocument::resultsChanged);
    QSignalSpy modifiedSpy(&document, &SessionDocument::modifiedChanged);

    const QUuid host =
        document.addTarget(test::httpTarget(QStringLiteral("host"), DeploymentMode::Host, 80, 0));
    const QUuid nat = document.addTarget(
        test::httpTarget(QStringLiteral("nat"), DeploymentMode::ContainerNat, 8080, 1));
    QCOMPARE(sessionSpy.count(), 2);
    QCOMPARE(modifiedSpy.count(), 1);
    QVERIFY(document.isModified());
    QCOMPARE(document.session().baseline()->id, host);

    QVERIFY(document.setBaseline(nat));
    QCOMPARE(document.session().baseline()->id, nat);
    QVERIFY(!document.setBaseline(QUuid::createUuid()));

    Target edited = *document.session().findTarget(host);
    edited.address = QStringLiteral("10.0.0.2:80");
    QVERIFY(document.updateTarget(edited));
    QCOMPARE(document.session().findTarget(host)->address, QStringLiteral("10.0.0.2:80"));

    QVERIFY(document.moveTarget(1, 0));
    QCOMPARE(document.session().targets.front().id, nat);

    document.putResult(test::measuredResult(host, 1, 0, 100, 1.0, {{1000, 100}}));
    QCOMPARE(resultsSpy.count(), 1);
    QVERIFY(document.removeTarget(host));
    QCOMPARE(resultsSpy.count(), 2); // its result went with it
    QVERIFY(document.session().results.empty());

    document.setModified(false);
    QCOMPARE(modifiedSpy.count(), 2);
    QCOMPARE(modifiedSpy.last().at(0).toBool(), false);
    const int sessionSignals = int(sessionSpy.count());
    document.setName(QString()); // no change, no signal
    QCOMPARE(sessionSpy.count(), sessionSignals);
    QVERIFY(!document.isModified());
}

// What a worker thread reads: the document's state when it was taken, kept
// as it was whatever the window edits afterwards, and made once per state.
void TestSessionModel::sharedSessionIsTheStateItWasTakenFrom() {
    SessionDocument document;
    document.reset(test::twoTargetSession());
    const size_t results = document.session().results.size();
    QVERIFY(results > 0);
    const QUuid host = document.session().targets.front().id;

    const std::shared_ptr<const Session> before = document.sharedSession();
    QCOMPARE(*before, document.session());
    QCOMPARE(document.sharedSession().get(), before.get()); // no edit, no new copy

    document.setName(QStringLiteral("renamed"));
    document.putResult(test::measuredResult(host, 7, 0, 700, 1.0, {{1000, 700}}));
    QVERIFY(document.removeTarget(document.session().targets.back().id));
    const std::shared_ptr<const Session> after = document.sharedSession();
    QVERIFY(after.get() != before.get());
    QCOMPARE(*after, document.session());
    QCOMPARE(after->name, QStringLiteral("renamed"));
    QCOMPARE(after->targets.size(), size_t(1));
    // The earlier state is untouched: two targets, none renamed, no c=7.
    QCOMPARE(before->targets.size(), size_t(2));
    QCOMPARE(before->name, test::twoTargetSession().name);
    QCOMPARE(before->results.size(), results);
    QVERIFY(std::none_of(before->results.begin(), before->results.end(),
                         [](const PointResult& result) { return result.concurrency == 7; }));

    // A session that comes with its copy (read on a worker) hands out that copy.
    Session opened = test::twoTargetSession();
    const auto copy = std::make_shared<const Session>(opened);
    document.reset(std::move(opened), copy);
    QCOMPARE(document.sharedSession().get(), copy.get());
    QCOMPARE(document.session(), *copy);
    QVERIFY(!document.isModified());
    document.clearResults();
    QVERIFY(document.sharedSession()->results.empty());
    QCOMPARE(copy->results.size(), results);
}

QTEST_GUILESS_MAIN(TestSessionModel)
#include "tst_session_model.moc"
