// Rate sweeps on the app side: the plan's rate levels (rules, file, points),
// the spec each point builds, a fixed-rate run turned into a result, resume
// by rate level, the knee of each mode against hand-made results whose knee
// is known, and the CSV columns that carry rate and both latencies.
#include "app/session/csv_export.h"
#include "app/session/json_reader.h"
#include "app/session/rate_curve.h"
#include "app/session/session_json.h"
#include "app/stats/sweep_estimate.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/run_result.h"
#include "session_test_data.h"

#include <QJsonDocument>
#include <QTest>

using namespace loadscope;
using namespace loadscope::app;

namespace {

SweepPlan ratePlan(std::vector<double> rates) {
    SweepPlan plan;
    plan.levelKind = SweepLevelKind::Rate;
    plan.rateLevels = std::move(rates);
    plan.rateConnections = 10;
    plan.repetitions = 2;
    return plan;
}

// A mode whose p99 (ms) at 1000, 2000, 4000, 8000 req/s is `p99`.
RateCurve curveWithP99(const std::vector<double>& p99) {
    RateCurve curve;
    double rate = 1000;
    for (double ms : p99) {
        RateLevel level;
        level.offeredRate = rate;
        level.achievedRate = rate;
        level.correctedMs[99] = ms;
        curve.levels.push_back(level);
        rate *= 2;
    }
    return curve;
}

QList<QByteArray> csvLines(const QByteArray& csv) {
    QList<QByteArray> lines = csv.split('\n');
    for (QByteArray& line : lines)
        line = line.trimmed();
    lines.removeAll(QByteArray());
    return lines;
}

} // namespace

class TestRateSweep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void planValidation_data();
    void planValidation();
    void planJson_data();
    void planJson();
    void oldPlanLoadsAndWritesAsBefore();
    void sweepPointsOfARatePlan();
    void specCarriesRateAndArrival();
    void fixedRateRunBecomesAFixedRateResult();
    void resumeTellsRateLevelsApart();
    void estimateOfARequestLimitedRatePlan();
    void knee_data();
    void knee();
    void curvesAverageRepetitionsPerRate();
    void csvCarriesRateAndBothLatencies();
};

void TestRateSweep::planValidation_data() {
    QTest::addColumn<QList<double>>("rates");
    QTest::addColumn<int>("connections");
    QTest::addColumn<QString>("problem");
    QTest::newRow("ok") << QList<double>{1000, 2000, 5000} << 10 << QString();
    QTest::newRow("fractional rate") << QList<double>{0.5, 2.5} << 1 << QString();
    QTest::newRow("no rates") << QList<double>{} << 10 << QStringLiteral("no rate levels");
    QTest::newRow("rate twice") << QList<double>{1000, 2000, 1000} << 10
                                << QStringLiteral("rate 1000 req/s is listed twice");
    QTest::newRow("zero rate") << QList<double>{0} << 10 << QStringLiteral("out of range");
    QTest::newRow("negative rate") << QList<double>{-5} << 10 << QStringLiteral("out of range");
    QTest::newRow("infinite rate") << QList<double>{qInf()} << 10 << QStringLiteral("out of range");
    QTest::newRow("too fast") << QList<double>{2e8} << 10 << QStringLiteral("out of range");
    QTest::newRow("no connections")
        << QList<double>{1000} << 0 << QStringLiteral("connections 0 is out of range");
}

void TestRateSweep::planValidation() {
    QFETCH(QList<double>, rates);
    QFETCH(int, connections);
    QFETCH(QString, problem);
    SweepPlan plan = ratePlan({rates.begin(), rates.end()});
    plan.rateConnections = connections;
    // The concurrency levels do not run in a rate plan: bad ones are no reason to refuse.
    plan.concurrencyLevels.clear();
    const Result<void> checked = validateSweepPlan(plan);
    if (problem.isEmpty()) {
        QVERIFY2(checked.ok(), qPrintable(checked ? QString() : checked.error().message));
    } else {
        QVERIFY(!checked);
        QVERIFY2(checked.error().message.contains(problem), qPrintable(checked.error().message));
    }
}

void TestRateSweep::planJson_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("problem");
    QTest::newRow("rate plan")
        << QByteArray(R"({"levelKind":"rate","rates":[500,1500.5],"rateConnections":4,)"
                      R"("arrival":"poisson","timerSlackUs":300,"durationSeconds":2})")
        << QString();
    QTest::newRow("rate plan without concurrency")
        << QByteArray(R"({"levelKind":"rate","rates":[100],"durationSeconds":2})") << QString();
    QTest::newRow("rate plan without rates")
        << QByteArray(R"({"levelKind":"rate","concurrency":[1],"durationSeconds":2})")
        << QStringLiteral("rates");
    QTest::newRow("unknown kind")
        << QByteArray(R"({"levelKind":"bursts","concurrency":[1],"durationSeconds":2})")
        << QStringLiteral("levelKind");
    QTest::newRow("unknown arrival")
        << QByteArray(R"({"levelKind":"rate","rates":[1],"arrival":"bursty","durationSeconds":2})")
        << QStringLiteral("arrival");
    QTest::newRow("zero rate") << QByteArray(
                                      R"({"levelKind":"rate","rates":[0],"durationSeconds":2})")
                               << QStringLiteral("rates[0]");
    QTest::newRow("rate twice")
        << QByteArray(R"({"levelKind":"rate","rates":[10,10],"durationSeconds":2})")
        << QStringLiteral("repeats rate 10");
    QTest::newRow("timer slack over 1 ms")
        << QByteArray(
               R"({"levelKind":"rate","rates":[10],"timerSlackUs":1001,"durationSeconds":2})")
        << QStringLiteral("timerSlackUs");
    QTest::newRow("no connections")
        << QByteArray(
               R"({"levelKind":"rate","rates":[10],"rateConnections":0,"durationSeconds":2})")
        << QStringLiteral("rateConnections");
}

void TestRateSweep::planJson() {
    QFETCH(QByteArray, json);
    QFETCH(QString, problem);
    const JsonReader reader(QJsonDocument::fromJson(json).object());
    const SweepPlan plan = sweepPlanFromJson(reader);
    if (!problem.isEmpty()) {
        QVERIFY(!reader.ok());
        QVERIFY2(reader.error().message.contains(problem), qPrintable(reader.error().message));
        return;
    }
    QVERIFY2(reader.ok(), qPrintable(reader.ok() ? QString() : reader.error().message));
    QCOMPARE(plan.levelKind, SweepLevelKind::Rate);
    QVERIFY(validateSweepPlan(plan).ok());
    // Written and read again, the plan is the same.
    const JsonReader again(sweepPlanToJson(plan));
    QCOMPARE(sweepPlanFromJson(again), plan);
    if (json.contains("poisson")) {
        QCOMPARE(plan.rateLevels, (std::vector<double>{500, 1500.5}));
        QCOMPARE(plan.rateConnections, 4);
        QCOMPARE(plan.arrival, engine::Arrival::Poisson);
        QCOMPARE(plan.timerSlackUs, 300);
    }
}

void TestRateSweep::oldPlanLoadsAndWritesAsBefore() {
    const QJsonObject old =
        QJsonDocument::fromJson(R"({"concurrency":[1,10],"limit":"duration","durationSeconds":3,)"
                                R"("requestsPerPoint":100,"threads":0,"cpus":[],)"
                                R"("warmupSeconds":0,"repetitions":2,"pauseSeconds":0,)"
                                R"("order":"interleaved"})")
            .object();
    const JsonReader reader(old);
    const SweepPlan plan = sweepPlanFromJson(reader);
    QVERIFY(reader.ok());
    QCOMPARE(plan.levelKind, SweepLevelKind::Concurrency);
    QCOMPARE(plan.concurrencyLevels, (std::vector<int>{1, 10}));
    // No rate key appears in a plan that never used rates.
    QCOMPARE(sweepPlanToJson(plan).keys(), old.keys());
}

void TestRateSweep::sweepPointsOfARatePlan() {
    SweepPlan plan = ratePlan({1000, 3000});
    const std::vector<Target> targets{makeTarget(QStringLiteral("a"), DeploymentMode::Host, 0),
                                      makeTarget(QStringLiteral("b"), DeploymentMode::Host, 1)};
    QStringList order;
    for (const SweepPoint& point : sweepPoints(plan, targets)) {
        QCOMPARE(point.concurrency, 10);
        order << QStringLiteral("%1@%2#%3")
                     .arg(point.targetId == targets[0].id ? QStringLiteral("a")
                                                          : QStringLiteral("b"))
                     .arg(point.rate)
                     .arg(point.repetition);
    }
    QCOMPARE(order, (QStringList{QStringLiteral("a@1000#0"), QStringLiteral("b@1000#0"),
                                 QStringLiteral("a@1000#1"), QStringLiteral("b@1000#1"),
                                 QStringLiteral("a@3000#0"), QStringLiteral("b@3000#0"),
                                 QStringLiteral("a@3000#1"), QStringLiteral("b@3000#1")}));
    plan.order = SweepOrder::Sequential;
    const std::vector<SweepPoint> sequential = sweepPoints(plan, targets);
    QCOMPARE(sequential.size(), size_t(8));
    QCOMPARE(sequential[2].rate, 3000.0);
    QCOMPARE(sequential[2].targetId, targets[0].id);
    // A concurrency plan's points stay closed loop.
    plan.levelKind = SweepLevelKind::Concurrency;
    for (const SweepPoint& point : sweepPoints(plan, targets))
        QCOMPARE(point.rate, 0.0);
}

void TestRateSweep::specCarriesRateAndArrival() {
    const Target target = test::httpTarget(QStringLiteral("host"), DeploymentMode::Host, 8080, 0);
    SweepPlan plan = ratePlan({2500});
    plan.arrival = engine::Arrival::Poisson;
    plan.timerSlackUs = 300;
    const auto draft = draftLoadSpec(target, plan.rateConnections, plan, 2500);
    QVERIFY2(draft.ok(), qPrintable(draft ? QString() : draft.error().message));
    QCOMPARE(draft->spec.rate, 2500.0);
    QCOMPARE(draft->spec.arrival, engine::Arrival::Poisson);
    QCOMPARE(draft->spec.timerSlack, std::chrono::nanoseconds(std::chrono::microseconds(300)));
    QCOMPARE(draft->spec.concurrency, 10u);
    // Without a rate the spec is closed loop, as before rate sweeps.
    const auto closed = draftLoadSpec(target, 10, SweepPlan{});
    QVERIFY(closed.ok());
    QCOMPARE(closed->spec.rate, 0.0);
    const auto bad = draftLoadSpec(target, 10, plan, -1);
    QVERIFY(!bad);
    QVERIFY(bad.error().message.contains(QStringLiteral("rate")));
}

void TestRateSweep::fixedRateRunBecomesAFixedRateResult() {
    engine::RunResult run;
    run.complete = 20'000;
    run.durationSeconds = 10;
    run.concurrency = 10;
    run.threads = 2;
    run.offeredRate = 2000;
    run.maxBacklog = 37;
    run.clientSaturated = true;
    // Corrected: 600 requests waited behind a 300 ms stall; uncorrected they took 1 ms.
    run.total.recordN(1'000'000, 19'400);
    run.total.recordN(300'000'000, 600);
    run.uncorrected.recordN(1'000'000, 20'000);
    const PointResult result = pointResultFromRun(run, QUuid::createUuid(), 10, 0, {});
    QCOMPARE(result.loadModel, LoadModel::FixedRate);
    QCOMPARE(result.offeredRate, std::optional<double>(2000));
    QCOMPARE(result.levelRate(), 2000.0);
    QCOMPARE(result.maxBacklog, uint64_t(37));
    QVERIFY(result.clientSaturated);
    QVERIFY(!result.uncorrectedHistogram.isEmpty());
    QVERIFY(*result.total.percentile(99) > 250);
    QVERIFY(*result.uncorrected.percentile(99) < 1.1);
    QCOMPARE(result.requestsPerSecond(), 2000.0);

    // A closed-loop run carries none of it.
    engine::RunResult closed;
    closed.complete = 10;
    closed.durationSeconds = 1;
    closed.total.recordN(1'000'000, 10);
    const PointResult plain = pointResultFromRun(closed, QUuid::createUuid(), 1, 0, {});
    QCOMPARE(plain.loadModel, LoadModel::ClosedLoop);
    QVERIFY(!plain.offeredRate);
    QVERIFY(plain.uncorrected.isEmpty());
}

void TestRateSweep::resumeTellsRateLevelsApart() {
    Session session;
    session.targets.push_back(test::httpTarget(QStringLiteral("a"), DeploymentMode::Host, 80, 0));
    session.plan = ratePlan({1000, 2000});
    const QUuid id = session.targets[0].id;
    session.putResult(test::rateResult(id, 10, 1000, 0, 1000, 1, 2, 3));
    session.putResult(test::rateResult(id, 10, 1000, 1, 1000, 1, 2, 3));
    // Same connections and repetition, another rate: a result of its own.
    session.putResult(test::rateResult(id, 10, 2000, 0, 2000, 1, 2, 3));
    QCOMPARE(session.results.size(), size_t(3));
    const std::vector<SweepPoint> missing = missingPoints(session);
    QCOMPARE(missing.size(), size_t(1));
    QCOMPARE(missing[0].rate, 2000.0);
    QCOMPARE(missing[0].repetition, 1);
    // Saved and loaded, the results keep their levels (none set aside as repeated).
    const auto reloaded = sessionFromJson(sessionToJson(session));
    QVERIFY2(reloaded.ok(), qPrintable(reloaded ? QString() : reloaded.error().message));
    QCOMPARE(reloaded->results.size(), size_t(3));
    QVERIFY(reloaded->setAside.empty());
    QCOMPARE(reloaded->plan, session.plan);
}

void TestRateSweep::estimateOfARequestLimitedRatePlan() {
    Session session;
    session.targets.push_back(makeTarget(QStringLiteral("a"), DeploymentMode::Host, 0));
    session.plan = ratePlan({100, 400});
    session.plan.repetitions = 1;
    session.plan.limit = PointLimit::Requests;
    session.plan.requestsPerPoint = 2000;
    // On a schedule 2000 requests take 20 s at 100 req/s and 5 s at 400 req/s,
    // before anything was measured.
    const SweepEstimate estimate = estimateSweep(session);
    QCOMPARE(estimate.unknownPoints, 0);
    QCOMPARE(estimate.totalSeconds, 25.0);
}

void TestRateSweep::knee_data() {
    QTest::addColumn<QList<double>>("p99");
    QTest::addColumn<double>("objective");
    QTest::addColumn<double>("knee"); // 0: none
    QTest::newRow("gives way at 4000") << QList<double>{2, 3, 12, 40} << 10.0 << 2000.0;
    QTest::newRow("none under") << QList<double>{15, 30, 60, 90} << 10.0 << 0.0;
    QTest::newRow("all under") << QList<double>{1, 1.5, 2, 4} << 10.0 << 8000.0;
    QTest::newRow("at the objective is not under") << QList<double>{5, 10, 11} << 10.0 << 1000.0;
    // After the first miss the mode has given way, whatever a noisy level above says.
    QTest::newRow("noisy recovery") << QList<double>{2, 12, 5, 50} << 10.0 << 1000.0;
    QTest::newRow("empty") << QList<double>{} << 10.0 << 0.0;
}

void TestRateSweep::knee() {
    QFETCH(QList<double>, p99);
    QFETCH(double, objective);
    QFETCH(double, knee);
    const RateCurve curve = curveWithP99({p99.begin(), p99.end()});
    const std::optional<double> found = kneeRate(curve, objective);
    if (knee == 0) {
        QVERIFY(!found);
        QVERIFY(!kneeIndex(curve, objective));
    } else {
        QCOMPARE(found, std::optional<double>(knee));
    }
}

void TestRateSweep::curvesAverageRepetitionsPerRate() {
    Session session;
    session.targets.push_back(makeTarget(QStringLiteral("direct"), DeploymentMode::Host, 0));
    session.targets.push_back(makeTarget(QStringLiteral("proxy"), DeploymentMode::Host, 1));
    const QUuid direct = session.targets[0].id;
    const QUuid proxy = session.targets[1].id;
    // Out of order, two repetitions at 1000 req/s.
    session.results.push_back(test::rateResult(proxy, 10, 4000, 0, 3000, 20, 90, 120));
    session.results.push_back(test::rateResult(direct, 10, 2000, 0, 2000, 1, 4, 6));
    session.results.push_back(test::rateResult(direct, 10, 1000, 0, 1000, 1, 2, 3));
    session.results.push_back(test::rateResult(direct, 10, 1000, 1, 1000, 1, 4, 5));
    session.results.push_back(test::rateResult(proxy, 10, 1000, 0, 1000, 2, 6, 8));
    // Closed-loop results are not part of any rate curve.
    session.results.push_back(test::measuredResult(direct, 10, 0, 500, 1, {{1'000'000, 500}}));
    const std::vector<RateCurve> curves = rateCurves(session);
    QCOMPARE(curves.size(), size_t(2));
    QCOMPARE(curves[0].targetId, direct);
    QCOMPARE(curves[0].levels.size(), size_t(2));
    QCOMPARE(curves[0].levels[0].offeredRate, 1000.0);
    QCOMPARE(curves[0].levels[0].repetitions, 2);
    QCOMPARE(curves[0].levels[0].corrected(99), std::optional<double>(3)); // (2 + 4) / 2
    QVERIFY(qFuzzyCompare(curves[0].levels[0].uncorrected(99).value_or(0), 0.3));
    QCOMPARE(curves[0].levels[1].achievedRate, 2000.0);
    QCOMPARE(curves[1].levels[1].achievedRate, 3000.0);
    QCOMPARE(kneeRate(curves[0], 5), std::optional<double>(2000));
    QVERIFY(!kneeRate(curves[1], 5));
    QCOMPARE(kneeRate(curves[1], 10), std::optional<double>(1000));
}

void TestRateSweep::csvCarriesRateAndBothLatencies() {
    Session session;
    session.targets.push_back(
        test::httpTarget(QStringLiteral("direct"), DeploymentMode::Host, 8080, 0));
    const QUuid id = session.targets[0].id;
    PointResult result = test::rateResult(id, 10, 2000, 0, 1950, 1.5, 40, 80);
    result.maxBacklog = 12;
    session.results.push_back(result);

    const QList<QByteArray> rows = csvLines(resultsCsv(session));
    QCOMPARE(rows.size(), 2);
    const QList<QByteArray> header = rows[0].split(',');
    const QList<QByteArray> values = rows[1].split(',');
    QCOMPARE(header.size(), values.size());
    const auto column = [&](const char* name) {
        const qsizetype at = header.indexOf(QByteArray(name));
        return at < 0 ? QByteArray("<missing>") : values[at];
    };
    QCOMPARE(column("load_model"), QByteArray("fixed-rate"));
    QCOMPARE(column("offered_rate"), QByteArray("2000"));
    QCOMPARE(column("requests_per_second"), QByteArray("1950"));
    QCOMPARE(column("latency_p99_ms"), QByteArray("40"));
    QCOMPARE(column("latency_uncorrected_p99_ms"), QByteArray("4"));
    QCOMPARE(column("max_backlog"), QByteArray("12"));
    QCOMPARE(column("client_saturated"), QByteArray("false"));
    // Appended after the columns before them, never inserted among them.
    QCOMPARE(header.indexOf(QByteArray("max_backlog")),
             header.indexOf(QByteArray("latency_uncorrected_p99_9_ms")) + 1);
    QCOMPARE(header.indexOf(QByteArray("client_saturated")),
             header.indexOf(QByteArray("max_backlog")) + 1);

    const Comparison comparison(session);
    const QList<QByteArray> summary = csvLines(summaryCsv(session, comparison));
    const qsizetype offeredRate = summary[0].split(',').indexOf(QByteArray("offered_rate"));
    QCOMPARE(offeredRate, summary[0].split(',').indexOf(QByteArray("load_model")) + 1);
    QSet<QByteArray> metrics;
    for (qsizetype i = 1; i < summary.size(); ++i) {
        const QList<QByteArray> fields = summary[i].split(',');
        QCOMPARE(fields[offeredRate], QByteArray("2000"));
        metrics.insert(fields[5]);
        if (fields[5] == "latency_uncorrected_p99_ms")
            QCOMPARE(fields[8], QByteArray("4")); // mean
        if (fields[5] == "latency_p99_ms")
            QCOMPARE(fields[8], QByteArray("40"));
    }
    for (const char* metric :
         {"requests_per_second", "latency_p99_ms", "latency_uncorrected_p50_ms",
          "latency_uncorrected_p99_ms", "latency_uncorrected_p99_9_ms"})
        QVERIFY2(metrics.contains(metric), metric);
}

QTEST_GUILESS_MAIN(TestRateSweep)
#include "tst_rate_sweep.moc"
