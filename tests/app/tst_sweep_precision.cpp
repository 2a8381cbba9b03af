// Repeat until tight: the SweepRunner adds interleaved rounds per level until
// every target's ratio to the baseline is known within the plan's precision,
// and names the targets it could not pin down. The runs come from a source
// whose figures are known (no server, no engine): a steady target is tight
// after the least repetitions, a target scattering by +/-20 % never is.
#include "app/session/json_reader.h"
#include "app/session/session_document.h"
#include "app/session/session_json.h"
#include "app/session/statistics_precision.h"
#include "app/sweep/sweep_runner.h"
#include "session_test_data.h"
#include "sweep_run_to_end.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <map>
#include <memory>
#include <optional>

using namespace loadscope;
using app::SweepOutcome;
using app::SweepPoint;
using test::runToEnd;

namespace {

// host, steady and jumpy, at levels 1 and 4; nothing listens on their ports
// (the probe is off and the runs come from the source below).
app::Session threeTargets(double precision, int least, int most) {
    app::Session session;
    session.targets.push_back(
        test::httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 9, 0));
    session.targets.push_back(
        test::httpTarget(QStringLiteral("steady"), app::DeploymentMode::ContainerNat, 9, 1));
    session.targets.push_back(
        test::httpTarget(QStringLiteral("jumpy"), app::DeploymentMode::LinuxBridge, 9, 2));
    session.baselineTargetId = session.targets[0].id;
    session.plan.concurrencyLevels = {1, 4};
    session.plan.limit = app::PointLimit::Requests;
    session.plan.requestsPerPoint = 1000;
    session.plan.repetitions = least;
    session.plan.precisionPercent = precision;
    session.plan.maxRepetitions = most;
    return session;
}

// Requests per second of each run: the host drifts by 1 % a repetition,
// steady follows it at 80 % to within 0.1 %, jumpy swings +/-20 % around 70 %.
engine::RunResult knownRun(const app::Session& session, const SweepPoint& point) {
    const double drift = 1000.0 * (1 + 0.01 * point.repetition);
    const double swing = point.repetition % 2 == 0 ? 1.2 : 0.8;
    const double pulse = point.repetition % 2 == 0 ? 1.001 : 0.999;
    double rate = drift;
    if (point.targetId == session.targets[1].id)
        rate = drift * 0.8 * pulse;
    else if (point.targetId == session.targets[2].id)
        rate = drift * 0.7 * swing;
    engine::RunResult run;
    run.complete = 1000;
    run.durationSeconds = 1000.0 / rate;
    run.threads = 1;
    run.bytesTotal = 1000 * 100;
    run.statusCodes[200] = 1000;
    return run;
}

// A runner of `document` without probes, its runs from knownRun().
std::unique_ptr<app::SweepRunner> knownRunner(app::SessionDocument& document,
                                              const app::Session& session) {
    auto runner = std::make_unique<app::SweepRunner>(&document);
    runner->setProbeEnabled(false);
    runner->setRunSource([&session](const engine::LoadSpec&, const SweepPoint& point) {
        return knownRun(session, point);
    });
    return runner;
}

std::map<std::pair<QUuid, int>, int> repetitionsByTargetAndLevel(const app::Session& session) {
    std::map<std::pair<QUuid, int>, int> counts;
    for (const app::PointResult& result : session.results)
        ++counts[{result.targetId, result.concurrency}];
    return counts;
}

} // namespace

class TestSweepPrecision : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stopsAsSoonAsTight();
    void givesUpAtTheMostNamingTheTarget();
    void aResumedSweepAddsRoundsToALooseLevel();
    void planRulesAndFile();
};

void TestSweepPrecision::stopsAsSoonAsTight() {
    // Without jumpy: steady's ratio is 0.8 within 0.1 %, so the least three
    // repetitions pin it to +/-1 % and no round is added.
    app::Session session = threeTargets(1, 3, 10);
    session.targets.pop_back();
    app::SessionDocument document;
    document.reset(session);
    const auto owned = knownRunner(document, session);
    app::SweepRunner& runner = *owned;
    QSignalSpy precision(&runner, &app::SweepRunner::precisionFinished);
    const SweepOutcome outcome = runToEnd(runner);
    QCOMPARE(outcome.status, SweepOutcome::Status::Completed);
    QCOMPARE(outcome.pointsRun, 2 * 2 * 3);
    QCOMPARE(outcome.roundPointsAdded, 0);
    QVERIFY(outcome.notPinnedDown.isEmpty());
    QCOMPARE(precision.size(), 2);
    QCOMPARE(precision.at(0).at(1).toBool(), true);
    QVERIFY2(precision.at(0).at(2).toString().contains(QStringLiteral("within ±1 %")),
             qPrintable(precision.at(0).at(2).toString()));
    const app::LevelPrecision level = app::levelPrecision(document.session(), 4);
    QVERIFY(level.tight);
    QCOMPARE(level.rounds, 3);
}

void TestSweepPrecision::givesUpAtTheMostNamingTheTarget() {
    // jumpy's runs swing by +/-20 %: +/-3 % is out of reach in six repetitions.
    const app::Session session = threeTargets(3, 2, 6);
    app::SessionDocument document;
    document.reset(session);
    const auto owned = knownRunner(document, session);
    app::SweepRunner& runner = *owned;
    QSignalSpy started(&runner, &app::SweepRunner::pointStarted);
    QSignalSpy precision(&runner, &app::SweepRunner::precisionFinished);
    const SweepOutcome outcome = runToEnd(runner);
    QCOMPARE(outcome.status, SweepOutcome::Status::Completed);
    // Every target went to six repetitions at both levels, round by round.
    for (const auto& [key, count] : repetitionsByTargetAndLevel(document.session()))
        QCOMPARE(count, 6);
    QCOMPARE(outcome.pointsRun, 3 * 2 * 6);
    QCOMPARE(outcome.roundPointsAdded, 3 * 2 * 4);
    QCOMPARE(outcome.pointCount, 3 * 2 * 6);
    // Rounds are interleaved: the third round runs host, steady, jumpy at c=1.
    const SweepPoint third = started.at(6).at(0).value<SweepPoint>();
    QCOMPARE(third.repetition, 2);
    QCOMPARE(third.targetId, session.targets[0].id);
    QCOMPARE(third.concurrency, 1);
    QCOMPARE(started.at(8).at(0).value<SweepPoint>().targetId, session.targets[2].id);

    QCOMPARE(outcome.notPinnedDown.size(), 2); // jumpy at each level, steady never
    for (const QString& line : outcome.notPinnedDown) {
        QVERIFY2(line.startsWith(QStringLiteral("jumpy at concurrency ")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("after 6 repetitions, spread too large")),
                 qPrintable(line));
    }
    QCOMPARE(precision.size(), 2);
    QCOMPARE(precision.at(1).at(0).toInt(), 4);
    QCOMPARE(precision.at(1).at(1).toBool(), false);
    QVERIFY2(precision.at(1).at(2).toString().startsWith(
                 QStringLiteral("gave up on ±3 % after 6 repetitions: jumpy")),
             qPrintable(precision.at(1).at(2).toString()));

    // Run again: every level is done as far as it goes; nothing more runs.
    QCOMPARE(runToEnd(*knownRunner(document, session)).pointsRun, 0);
}

void TestSweepPrecision::aResumedSweepAddsRoundsToALooseLevel() {
    // Every point of the plan is stored and both levels are loose at the most
    // (two) repetitions; raised to six, the sweep resumes with rounds alone,
    // no missing point among them.
    app::Session session = threeTargets(3, 2, 2);
    app::SessionDocument document;
    document.reset(session);
    const SweepOutcome first = runToEnd(*knownRunner(document, session));
    QCOMPARE(first.status, SweepOutcome::Status::Completed);
    QCOMPARE(first.pointsRun, 3 * 2 * 2);

    app::Session raised = document.session();
    raised.plan.maxRepetitions = 6;
    document.reset(raised);
    const SweepOutcome resumed = runToEnd(*knownRunner(document, session));
    QVERIFY2(resumed.status == SweepOutcome::Status::Completed, qPrintable(resumed.error));
    QCOMPARE(resumed.pointsRun, 3 * 2 * 4);
    QCOMPARE(resumed.roundPointsAdded, 3 * 2 * 4);
    for (const auto& [key, count] : repetitionsByTargetAndLevel(document.session()))
        QCOMPARE(count, 6);
}

void TestSweepPrecision::planRulesAndFile() {
    app::SweepPlan plan = threeTargets(2, 3, 10).plan;
    QVERIFY(app::validateSweepPlan(plan).ok());
    plan.repetitions = 1;
    QVERIFY(!app::validateSweepPlan(plan).ok());
    plan.repetitions = 3;
    plan.maxRepetitions = 2;
    QCOMPARE(app::validateSweepPlan(plan).error().message,
             QStringLiteral("maximum repetitions must be 3 (the least) to 1000"));
    plan.maxRepetitions = 10;
    plan.order = app::SweepOrder::Sequential;
    QVERIFY(!app::validateSweepPlan(plan).ok());
    plan.order = app::SweepOrder::Interleaved;
    plan.levelKind = app::SweepLevelKind::Rate;
    plan.rateLevels = {1000, 2000};
    QVERIFY(app::validateSweepPlan(plan).error().message.contains(
        QStringLiteral("concurrency levels only")));
    plan.levelKind = app::SweepLevelKind::Concurrency;
    plan.precisionPercent = -1;
    QVERIFY(!app::validateSweepPlan(plan).ok());

    // Saved and read back; a plan without a precision saves as before.
    plan.precisionPercent = 2.5;
    const QJsonObject json = app::sweepPlanToJson(plan);
    QCOMPARE(json.value(QStringLiteral("precisionPercent")).toDouble(), 2.5);
    QCOMPARE(json.value(QStringLiteral("maxRepetitions")).toInt(), 10);
    const app::JsonReader reader(json);
    const app::SweepPlan read = app::sweepPlanFromJson(reader);
    QVERIFY(reader.ok());
    QCOMPARE(read, plan);
    const app::SweepPlan plain;
    const QJsonObject old = app::sweepPlanToJson(plain);
    QVERIFY(!old.contains(QStringLiteral("precisionPercent")));
    QVERIFY(!old.contains(QStringLiteral("maxRepetitions")));
    // A file from before precisions: no precision, the plan as it was.
    const app::JsonReader oldReader(old);
    const app::SweepPlan oldRead = app::sweepPlanFromJson(oldReader);
    QVERIFY(oldReader.ok());
    QCOMPARE(oldRead.precisionPercent, 0.0);
    QCOMPARE(oldRead, plain);
    // Out of range in a file: refused with the field named.
    QJsonObject bad = json;
    bad.insert(QStringLiteral("precisionPercent"), 500);
    const app::JsonReader badReader(bad);
    app::sweepPlanFromJson(badReader);
    QVERIFY(!badReader.ok());
    QVERIFY2(badReader.error().message.contains(QStringLiteral("precisionPercent")),
             qPrintable(badReader.error().message));
}

QTEST_GUILESS_MAIN(TestSweepPrecision)
#include "tst_sweep_precision.moc"
