// A capacity plan in a session: its plan and step keys in the file, its
// points (one search per target and repetition, interleaved) and when a
// search is done, a step never taking a rate level's place, and the
// comparison of capacities (mean, interval, paired change against the
// baseline) in the report, the summary CSV and `loadscope-cli report`, from
// steps whose searches' answers are known by construction.
#include "app/cli/commands.h"
#include "app/session/capacity_comparison.h"
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/session/json_reader.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/session/session_json.h"
#include "app/sweep/sweep_runner.h"
#include "cli_process.h"
#include "engine/run_result.h"
#include "sweep_run_to_end.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <memory>

using namespace loadscope::app;

namespace {

constexpr int kConnections = 50;

SweepPlan capacityPlan() {
    SweepPlan plan;
    plan.levelKind = SweepLevelKind::Capacity;
    plan.rateConnections = kConnections;
    plan.repetitions = 3;
    plan.capacity.objective.percentile = 99;
    plan.capacity.objective.boundMs = 5;
    plan.capacity.precisionPercent = 5;
    return plan;
}

// A step of `target`'s search `repetition` at `rate` whose p99 is `p99Ms`.
PointResult step(const Target& target, int repetition, int number, double rate, double p99Ms) {
    PointResult result;
    result.targetId = target.id;
    result.concurrency = kConnections;
    result.repetition = repetition;
    result.source.tool = QStringLiteral("loadscope");
    result.loadModel = LoadModel::FixedRate;
    result.offeredRate = rate;
    result.capacityStep = number;
    result.durationSeconds = 2;
    result.complete = uint64_t(rate * 2);
    result.total.percentilesMs[99] = p99Ms;
    result.uncorrected.meanMs = 1;
    return result;
}

// A search that met at `capacity` and missed 4 % above: finished at a 5 % precision.
void addFinishedSearch(Session& session, const Target& target, int repetition, double capacity) {
    session.putResult(step(target, repetition, 1, capacity * 1.04, 40));
    session.putResult(step(target, repetition, 2, capacity, 2));
}

Session twoModes() {
    Session session;
    session.name = QStringLiteral("capacity");
    session.targets.push_back(makeTarget(QStringLiteral("host"), DeploymentMode::Host, 0));
    session.targets.push_back(makeTarget(QStringLiteral("nat"), DeploymentMode::ContainerNat, 1));
    for (Target& target : session.targets)
        target.http.url = QStringLiteral("http://127.0.0.1:8080/");
    session.baselineTargetId = session.targets[0].id;
    session.plan = capacityPlan();
    return session;
}

// host at 1000, 1100, 1050 req/s; nat at 0.80, 0.79, 0.81 of host's, repetition by repetition.
const double kHost[] = {1000, 1100, 1050};
const double kNatShare[] = {0.80, 0.79, 0.81};

Session measuredTwoModes() {
    Session session = twoModes();
    for (int repetition = 0; repetition < 3; ++repetition) {
        addFinishedSearch(session, session.targets[0], repetition, kHost[repetition]);
        addFinishedSearch(session, session.targets[1], repetition,
                          kHost[repetition] * kNatShare[repetition]);
    }
    return session;
}

// A server of `capacity` req/s at p99 <= 5 ms, as a run of `spec` would
// measure it: below the capacity every request takes 1 ms, above it 2 % take
// 40 ms; the probe (a closed loop) achieves the capacity.
loadscope::engine::RunResult modelledRun(double capacity, const loadscope::engine::LoadSpec& spec) {
    loadscope::engine::RunResult run;
    run.durationSeconds = double(spec.duration.count()) / 1e9;
    run.threads = 1;
    run.offeredRate = spec.rate;
    const double achieved = spec.rate > 0 ? std::min(spec.rate, capacity) : capacity;
    run.complete = uint64_t(achieved * run.durationSeconds);
    const uint64_t slow = spec.rate > capacity ? run.complete / 50 : 0;
    for (loadscope::engine::Histogram* latency : {&run.total, &run.uncorrected}) {
        latency->recordN(1'000'000, run.complete - slow);
        latency->recordN(40'000'000, slow);
    }
    return run;
}

struct RunSeen {
    SweepPoint point;
    double rate = 0;
    double seconds = 0;
    double warmupSeconds = 0;
};

// A runner of `document` whose runs come from modelledRun(): host 5000 req/s,
// nat 4000; each run it is asked for noted in `seen`.
std::unique_ptr<SweepRunner> modelledRunner(SessionDocument& document, const Session& session,
                                            std::vector<RunSeen>& seen) {
    auto runner = std::make_unique<SweepRunner>(&document);
    runner->setProbeEnabled(false);
    const QUuid host = session.targets[0].id;
    runner->setRunSource(
        [host, &seen](const loadscope::engine::LoadSpec& spec, const SweepPoint& point) {
            seen.push_back({point, spec.rate, double(spec.duration.count()) / 1e9,
                            double(spec.warmup.count()) / 1e9});
            return modelledRun(point.targetId == host ? 5000 : 4000, spec);
        });
    return runner;
}

} // namespace

class TestCapacitySession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void planRoundTripsThroughTheFile() {
        SweepPlan plan = capacityPlan();
        plan.capacity.objective.percentile = 99.9;
        plan.capacity.objective.boundMs = 2.5;
        plan.capacity.objective.maxFailedPercent = 0.1;
        plan.capacity.objective.minAchievedPercent = 95;
        plan.capacity.precisionPercent = 3;
        plan.capacity.maxSteps = 9;
        plan.capacity.minStepSeconds = 0.5;
        plan.capacity.maxStepSeconds = 10;
        const QJsonObject json = sweepPlanToJson(plan);
        QCOMPARE(json.value(QStringLiteral("levelKind")).toString(), QStringLiteral("capacity"));
        QCOMPARE(json.value(QStringLiteral("capacity"))
                     .toObject()
                     .value(QStringLiteral("boundMs"))
                     .toDouble(),
                 2.5);
        const JsonReader reader(json);
        QCOMPARE(sweepPlanFromJson(reader), plan);
        QVERIFY(reader.ok());
        // Written by hand: no levels needed.
        const JsonReader byHand(
            QJsonDocument::fromJson(R"({"levelKind":"capacity","durationSeconds":1,)"
                                    R"("capacity":{"percentile":99,"boundMs":5}})")
                .object());
        const SweepPlan read = sweepPlanFromJson(byHand);
        QVERIFY2(byHand.ok(), qPrintable(byHand.ok() ? QString() : byHand.error().message));
        QCOMPARE(read.levelKind, SweepLevelKind::Capacity);
        QVERIFY(validateSweepPlan(read));
        // A plan that never was a capacity plan writes no capacity key.
        QVERIFY(!sweepPlanToJson(SweepPlan{}).contains(QStringLiteral("capacity")));
        // A bad objective is refused with the field named.
        const JsonReader bad(
            QJsonDocument::fromJson(R"({"levelKind":"capacity","durationSeconds":1,)"
                                    R"("capacity":{"percentile":101,"boundMs":5}})")
                .object());
        sweepPlanFromJson(bad);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.contains(QStringLiteral("capacity.percentile")),
                 qPrintable(bad.error().message));
    }

    void stepsRoundTripAndKeepTheirNumber() {
        const Session session = measuredTwoModes();
        const QJsonObject json = sessionToJson(session);
        const auto read = sessionFromJson(json);
        QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
        QCOMPARE(read->results, session.results);
        QCOMPARE(read->plan, session.plan);
        // A result of no search saves as it always did.
        PointResult plain;
        plain.targetId = session.targets[0].id;
        plain.concurrency = 1;
        Session other = session;
        other.results = {plain};
        const QJsonObject saved = sessionToJson(other);
        QVERIFY(!QJsonDocument(saved).toJson().contains("capacityStep"));
    }

    void aStepNeverReplacesARateLevel() {
        Session session = twoModes();
        const Target& host = session.targets[0];
        PointResult level = step(host, 0, 0, 1000, 3);
        session.putResult(level);
        session.putResult(step(host, 0, 1, 1000, 3));
        session.putResult(step(host, 0, 2, 1000, 3));
        QCOMPARE(session.results.size(), size_t(3));
        // The same step again replaces itself only.
        session.putResult(step(host, 0, 2, 1000, 4));
        QCOMPARE(session.results.size(), size_t(3));
        QCOMPARE(session.results[2].total.percentile(99), 4.0);
    }

    void searchesArePointsDoneWhenFinished() {
        Session session = twoModes();
        const std::vector<SweepPoint> points = sweepPoints(session);
        QCOMPARE(points.size(), size_t(6));
        // Interleaved: every target's search of one repetition, then the next.
        for (size_t i = 0; i < points.size(); ++i) {
            QCOMPARE(points[i].targetId, session.targets[i % 2].id);
            QCOMPARE(points[i].repetition, int(i / 2));
            QCOMPARE(points[i].concurrency, kConnections);
            QCOMPARE(points[i].rate, 0.0);
        }
        // A closed-loop result at the plan's connections is no search.
        PointResult closedLoop;
        closedLoop.targetId = session.targets[0].id;
        closedLoop.concurrency = kConnections;
        session.putResult(closedLoop);
        QCOMPARE(missingPoints(session).size(), size_t(6));
        // A finished search is done; one with a step to go is not.
        addFinishedSearch(session, session.targets[0], 0, 1000);
        session.putResult(step(session.targets[1], 0, 1, 1000, 2));
        const std::vector<SweepPoint> missing = missingPoints(session);
        QCOMPARE(missing.size(), size_t(5));
        QVERIFY(isPointDone(session, points[0]));
        QVERIFY(!isPointDone(session, points[1]));
        const DonePoints done(session);
        QVERIFY(done.contains(points[0]));
        QVERIFY(!done.contains(points[1]));
        // The unfinished one (targets in order, then repetitions) goes on
        // from its step: 4/3 of a first step that met.
        const std::vector<CapacitySearch> searches = capacitySearches(session);
        QCOMPARE(searches.size(), size_t(6));
        QCOMPARE(searches[3].targetId, session.targets[1].id);
        QCOMPARE(searches[3].nextRate.value_or(0), 1000.0 * 4 / 3);
        // A tighter precision reopens a finished search.
        session.plan.capacity.precisionPercent = 1;
        QCOMPARE(missingPoints(session).size(), size_t(6));
    }

    void capacitiesAreComparedPairedByRepetition() {
        const Session session = measuredTwoModes();
        const CapacityComparison comparison(session);
        QCOMPARE(comparison.rows().size(), size_t(2));
        const CapacityRow* host = comparison.find(session.targets[0].id);
        const CapacityRow* nat = comparison.find(session.targets[1].id);
        QVERIFY(host && nat);
        QCOMPARE(host->figures.statistics.n, 3);
        QCOMPARE(host->figures.statistics.mean, 1050.0);
        QVERIFY(host->figures.statistics.ci95Low && host->figures.statistics.ci95High);
        QVERIFY(*host->figures.statistics.ci95Low < 1000 &&
                *host->figures.statistics.ci95High > 1100);
        QCOMPARE(host->figures.verdict, Verdict::Baseline);
        // The geometric mean of nat's share of host, repetition by repetition.
        const double share = std::cbrt(kNatShare[0] * kNatShare[1] * kNatShare[2]);
        QVERIFY(nat->figures.vsBaselinePercent);
        QVERIFY(std::fabs(*nat->figures.vsBaselinePercent - (share - 1) * 100) < 1e-9);
        QCOMPARE(nat->figures.method, ComparisonMethod::Paired);
        QCOMPARE(nat->figures.verdict, Verdict::Significant);
        QVERIFY(*nat->figures.vsBaselineLowPercent < -20.5 &&
                *nat->figures.vsBaselineHighPercent > -21.5 + 1);
    }

    void aClientLimitedSearchIsNoCapacity() {
        Session session = measuredTwoModes();
        // nat's third search: the client could not offer 1200 req/s, thrice,
        // its thread on CPU all the time.
        std::erase_if(session.results, [&](const PointResult& r) {
            return r.targetId == session.targets[1].id && r.repetition == 2;
        });
        session.putResult(step(session.targets[1], 2, 1, 900, 2));
        for (int attempt = 2; attempt <= 4; ++attempt) {
            PointResult late = step(session.targets[1], 2, attempt, 1200, 30);
            late.clientSaturated = true;
            late.complete = 1800; // 900 req/s achieved of 1200 offered
            late.threads = 1;
            late.clientCpuSeconds = late.durationSeconds;
            session.putResult(late);
        }
        const CapacityComparison comparison(session);
        const CapacityRow* nat = comparison.find(session.targets[1].id);
        QCOMPARE(nat->clientLimited, 1);
        QCOMPARE(nat->figures.statistics.n, 2);
        QCOMPARE(nat->lowerBounds, std::vector<double>{900});
        // Two pairs left, no longer the same repetitions: Welch's.
        QCOMPARE(nat->figures.method, ComparisonMethod::Welch);
        const QString report = capacityReport(session, comparison);
        QVERIFY2(report.contains(QStringLiteral("nat, search 3: at least 900 req/s: the client "
                                                "was the limit at 1200 req/s")),
                 qPrintable(report));

        // With no search of its own left to state one, the mode's row says why.
        std::erase_if(session.results, [&](const PointResult& r) {
            return r.targetId == session.targets[1].id && r.repetition < 2;
        });
        const QString none = capacityReport(session, CapacityComparison(session));
        QVERIFY2(none.contains(QStringLiteral("nat    ≥ 900.0 (1 client-limited)")),
                 qPrintable(none));
    }

    void reportAndSummaryCsvCarryTheCapacity() {
        const Session session = measuredTwoModes();
        const QString report = comparisonReport(session, Comparison(session));
        QVERIFY2(report.contains(QStringLiteral("Capacity at p99 ≤ 5 ms (50 connections; 3 "
                                                "searches per target, each to within 5 %)")),
                 qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("nat: -20.0% [")), qPrintable(report));
        QVERIFY2(report.contains(
                     QStringLiteral("] capacity at p99 ≤ 5 ms vs host (significant, paired)")),
                 qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("host, search 2: 1100 req/s (missed at 1144 "
                                                "req/s: p99 40.0 ms > 5 ms; within 3.8 %) after "
                                                "2 steps")),
                 qPrintable(report));
        // The steps are no rate levels of a comparison of their own.
        QVERIFY(Comparison(session).isEmpty());

        const QList<QByteArray> lines = summaryCsv(session, Comparison(session)).split('\n');
        QList<QByteArray> capacityRows;
        for (const QByteArray& line : lines)
            if (line.contains(",capacity,"))
                capacityRows << line.trimmed();
        QCOMPARE(capacityRows.size(), 2);
        QVERIFY2(capacityRows[0].startsWith("host,"), capacityRows[0].constData());
        QVERIFY(capacityRows[0].contains(",50,capacity,req/s,3,1050,"));
        QVERIFY(capacityRows[0].endsWith(",baseline,false,loadscope,capacity at p99 <= 5 ms,"));
        QVERIFY(capacityRows[1].contains(",true,significant,false,loadscope,"));
    }

    void theRunnerSearchesInterleavedAndResumes() {
        Session session = twoModes();
        session.plan.repetitions = 2;
        session.plan.warmupSeconds = 0.2;
        session.plan.capacity.minStepSeconds = 0.5;
        SessionDocument document;
        document.reset(session);
        std::vector<RunSeen> seen;
        const auto runner = modelledRunner(document, session, seen);
        QSignalSpy started(runner.get(), &SweepRunner::pointStarted);
        const SweepOutcome outcome = loadscope::test::runToEnd(*runner);
        QVERIFY2(outcome.status == SweepOutcome::Status::Completed, qPrintable(outcome.error));
        QCOMPARE(outcome.pointCount, 4);

        // Every search found its server's capacity to within its precision.
        const std::vector<CapacitySearch> searches = capacitySearches(document.session());
        QCOMPARE(searches.size(), size_t(4));
        for (const CapacitySearch& search : searches) {
            const double truth = search.targetId == session.targets[0].id ? 5000 : 4000;
            QCOMPARE(search.stop, std::optional(CapacityStop::Precision));
            QVERIFY2(*search.capacity() <= truth && *search.capacity() >= 0.95 * truth,
                     qPrintable(search.summary()));
        }
        // One search after another, interleaved: host's first, nat's first,
        // host's second, nat's second; each a probe (a closed loop at the
        // plan's connections for the shortest step), then its steps.
        std::vector<std::pair<QUuid, int>> order;
        for (const RunSeen& run : seen) {
            const std::pair<QUuid, int> search{run.point.targetId, run.point.repetition};
            if (order.empty() || order.back() != search)
                order.push_back(search);
            QCOMPARE(run.warmupSeconds, 0.2);
            if (run.point.capacityStep == 0) {
                QCOMPARE(run.rate, 0.0);
                QCOMPARE(run.seconds, 0.5);
            } else {
                QCOMPARE(run.rate, run.point.rate);
                QVERIFY(std::fabs(run.seconds -
                                  capacityStepSeconds(session.plan.capacity, run.rate)) < 1e-6);
            }
        }
        const QUuid host = session.targets[0].id;
        const QUuid nat = session.targets[1].id;
        QCOMPARE(order,
                 (std::vector<std::pair<QUuid, int>>{{host, 0}, {nat, 0}, {host, 1}, {nat, 1}}));
        QCOMPARE(std::count_if(seen.begin(), seen.end(),
                               [](const RunSeen& run) { return run.point.capacityStep == 0; }),
                 4);
        // A step is started as a point of its search.
        for (const QList<QVariant>& arguments : started) {
            const auto point = arguments.at(0).value<SweepPoint>();
            QCOMPARE(point.index, 2 * point.repetition + (point.targetId == nat ? 1 : 0));
            QCOMPARE(arguments.at(1).toInt(), 4);
        }

        // Cut short at nat's third step of its first search, then resumed:
        // it goes on from its second step, without a probe, to the same answers.
        SessionDocument cut;
        cut.reset(session);
        std::vector<RunSeen> first;
        const auto interrupted = modelledRunner(cut, session, first);
        SweepRunner* interruptedRunner = interrupted.get();
        interrupted->setRunSource(
            [&](const loadscope::engine::LoadSpec& spec, const SweepPoint& point) {
                first.push_back({point, spec.rate, 0, 0});
                if (point.targetId == nat && point.capacityStep == 3)
                    interruptedRunner->cancel();
                return modelledRun(point.targetId == host ? 5000 : 4000, spec);
            });
        QCOMPARE(loadscope::test::runToEnd(*interrupted).status, SweepOutcome::Status::Cancelled);
        QCOMPARE(missingPoints(cut.session()).size(), size_t(3));
        std::vector<RunSeen> resumed;
        const auto again = modelledRunner(cut, session, resumed);
        QCOMPARE(loadscope::test::runToEnd(*again).status, SweepOutcome::Status::Completed);
        QCOMPARE(resumed.front().point.targetId, nat);
        QCOMPARE(resumed.front().point.capacityStep, 3);
        const std::vector<CapacitySearch> after = capacitySearches(cut.session());
        for (size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].capacity(), searches[i].capacity());
            QCOMPARE(after[i].steps.size(), searches[i].steps.size());
            for (size_t n = 0; n < after[i].steps.size(); ++n)
                QCOMPARE(after[i].steps[n].number, int(n) + 1);
        }
    }

    void aTargetLoadedFromHostsIsRefused() {
        // A search's probe and steps run from this machine: a target whose
        // load comes from other hosts is refused in one line before any run.
        Session session = twoModes();
        session.hosts.push_back(Host{QStringLiteral("load1"), QStringLiteral("127.0.0.1")});
        session.targets[1].loadFrom = {QStringLiteral("load1")};
        SessionDocument document;
        document.reset(session);
        std::vector<RunSeen> seen;
        const auto runner = modelledRunner(document, session, seen);
        const SweepOutcome outcome = loadscope::test::runToEnd(*runner);
        QVERIFY(outcome.status != SweepOutcome::Status::Completed);
        QVERIFY2(outcome.error.contains(QStringLiteral("a capacity search runs its load from this "
                                                       "machine")) &&
                     !outcome.error.contains(QLatin1Char('\n')),
                 qPrintable(outcome.error));
        QVERIFY(seen.empty());
    }

    void reportCommandPrintsTheCapacity() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("capacity.loadscope"));
        QVERIFY(saveSessionFile(measuredTwoModes(), path));
        const loadscope::testing::CliOutcome run =
            loadscope::testing::runCliProcess({QStringLiteral("report"), path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("capacity at p99 \xe2\x89\xa4 5 ms vs host"),
                 run.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCapacitySession)
#include "tst_capacity_session.moc"
