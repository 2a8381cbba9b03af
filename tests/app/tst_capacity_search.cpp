// The capacity search's method against modelled servers whose capacity at an
// objective is known by construction (a cliff at a known rate, a latency that
// grows by a known law, a latency that no rate brings under the bound, a
// client that runs out of CPU or connections first): where it ends, why, and
// how long its steps are. Each model answers a step at a rate as a server of
// that kind would; the search sees only the results. Also the objective's
// text form and its refusals.
#include "app/session/capacity_objective.h"
#include "app/session/capacity_search.h"
#include "app/session/point_result.h"
#include "app/session/sweep_plan.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace loadscope::app;

namespace {

// How a modelled server (and its client) answers a step at `rate`.
struct Model {
    // Corrected p99 and the mean from send to answer, in ms.
    std::function<double(double rate)> p99Ms;
    std::function<double(double rate)> sentMeanMs = [](double) {
        return 1.0;
    };
    // Requests/s the pair achieves at `rate`.
    std::function<double(double rate)> achieved = [](double rate) {
        return rate;
    };
    // The median; unset: p99Ms (every request alike).
    std::function<double(double rate)> p50Ms;
    // The p99 from each request's actual send; unset: p99Ms (a client on time).
    std::function<double(double rate)> sentP99Ms;
    // Whether the client could not keep the schedule at `rate` (asked once per step).
    std::function<bool(double rate)> clientLate = [](double) {
        return false;
    };
    // The share of the step the client's thread was on CPU.
    std::function<double(double rate)> clientCpuLoad = [](double) {
        return 0.2;
    };
};

PointResult modelStep(const Model& model, double rate, int number, int connections) {
    PointResult step;
    step.targetId = QUuid::fromString(QStringLiteral("{00000000-0000-0000-0000-000000000001}"));
    step.concurrency = connections;
    step.loadModel = LoadModel::FixedRate;
    step.offeredRate = rate;
    step.capacityStep = number;
    step.durationSeconds = 2;
    step.complete = uint64_t(std::llround(model.achieved(rate) * step.durationSeconds));
    step.total.percentilesMs[99] = model.p99Ms(rate);
    step.total.percentilesMs[50] = model.p50Ms ? model.p50Ms(rate) : model.p99Ms(rate);
    step.uncorrected.meanMs = model.sentMeanMs(rate);
    step.uncorrected.percentilesMs[99] =
        model.sentP99Ms ? model.sentP99Ms(rate) : model.p99Ms(rate);
    step.clientSaturated = model.clientLate(rate);
    step.threads = 1;
    step.clientCpuSeconds = model.clientCpuLoad(rate) * step.durationSeconds;
    return step;
}

SweepPlan capacityPlan(double boundMs, double precisionPercent = 5, int maxSteps = 20) {
    SweepPlan plan;
    plan.levelKind = SweepLevelKind::Capacity;
    plan.rateConnections = 50;
    plan.capacity.objective.percentile = 99;
    plan.capacity.objective.boundMs = boundMs;
    plan.capacity.precisionPercent = precisionPercent;
    plan.capacity.maxSteps = maxSteps;
    return plan;
}

// The search run to its end against the model, the probe having measured
// `probeRate`. `stored` keeps the steps the returned search points into.
CapacitySearch searchModel(const SweepPlan& plan, const Model& model, double probeRate,
                           std::vector<PointResult>& stored) {
    stored.clear();
    stored.reserve(size_t(kMaxCapacitySteps) + 1);
    for (;;) {
        std::vector<const PointResult*> steps;
        for (const PointResult& step : stored)
            steps.push_back(&step);
        CapacitySearch search = capacitySearch(plan, stored.empty() ? QUuid() : stored[0].targetId,
                                               0, std::move(steps));
        if (search.finished() || stored.size() > size_t(kMaxCapacitySteps))
            return search;
        const double rate =
            stored.empty() ? firstCapacityStepRate(probeRate) : search.nextRate.value_or(0);
        stored.push_back(modelStep(model, rate, int(stored.size()) + 1, plan.rateConnections));
    }
}

// Why the search stopped, or "not finished": what a failed check shows.
QString stopText(const CapacitySearch& search) {
    return search.stop ? capacityStopId(*search.stop) : QStringLiteral("not finished");
}

// A server that holds `unloadedMs` up to `capacity` req/s and gives way above
// it: the queue of a step of kQueueMs grows by (rate - capacity) / capacity
// of it, so the last requests wait that much longer.
constexpr double kQueueMs = 2000;
Model cliff(double capacity, double unloadedMs) {
    Model model;
    model.p99Ms = [=](double rate) {
        return rate <= capacity ? unloadedMs : unloadedMs + kQueueMs * (rate - capacity) / capacity;
    };
    model.achieved = [=](double rate) {
        return std::min(rate, capacity);
    };
    model.sentMeanMs = [=](double rate) {
        return rate <= capacity ? unloadedMs : 20 * unloadedMs;
    };
    return model;
}

} // namespace

class TestCapacitySearch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsACliffWithinItsPrecision_data();
    void findsACliffWithinItsPrecision();
    void findsWhereGrowingLatencyReachesTheBound_data();
    void findsWhereGrowingLatencyReachesTheBound();
    void boundBelowTheUnloadedLatencyMeetsNoRate();
    void latencyThatKeepsFallingStopsAtTheFloor();
    void stopsWhenTheClientCpuIsTheLimit();
    void aLateClientIsAskedAgainThenCountsAsAMiss();
    void aMissInTheTailAloneIsAskedAgain();
    void stopsWhenTheConnectionsAreTheLimit();
    void busyConnectionsWaitingForASlowServerAreItsMiss();
    void anAttemptAskedAgainIsNotJudgedForConnections();
    void aMetStepAboveAMissDoesNotCount();
    void stopsAtTheStepBudget();
    void failuresAndAchievedShareMiss();
    void stepLongEnoughForThePercentile_data();
    void stepLongEnoughForThePercentile();
    void stepPlanAndProbePlan();
    void objectiveTextForms_data();
    void objectiveTextForms();
    void badObjectivesRefusedInOneLine_data();
    void badObjectivesRefusedInOneLine();
    void planRefusesBadSearchSettings_data();
    void planRefusesBadSearchSettings();
};

void TestCapacitySearch::findsACliffWithinItsPrecision_data() {
    QTest::addColumn<double>("capacity");
    QTest::addColumn<double>("probeFactor"); // the probe's throughput / the capacity
    QTest::addColumn<double>("precision");
    QTest::newRow("probe at the capacity") << 1000.0 << 1.0 << 5.0;
    QTest::newRow("probe a little below") << 52000.0 << 0.97 << 5.0;
    QTest::newRow("probe three times above") << 5000.0 << 3.0 << 5.0;
    QTest::newRow("probe far below (few connections)") << 8000.0 << 0.1 << 5.0;
    QTest::newRow("one percent") << 41000.0 << 1.3 << 1.0;
    QTest::newRow("twenty percent") << 750.0 << 0.8 << 20.0;
}

void TestCapacitySearch::findsACliffWithinItsPrecision() {
    QFETCH(double, capacity);
    QFETCH(double, probeFactor);
    QFETCH(double, precision);
    const SweepPlan plan = capacityPlan(5, precision);
    std::vector<PointResult> stored;
    const CapacitySearch search =
        searchModel(plan, cliff(capacity, 1.0), capacity * probeFactor, stored);
    // Where the growing queue's p99 reaches 5 ms.
    const double truth = capacity * (1 + (5.0 - 1.0) / kQueueMs);
    QCOMPARE(stopText(search), QStringLiteral("precision"));
    QVERIFY(search.capacity());
    QVERIFY(search.lowestMissedRate());
    // The truth lies between the highest meet and the lowest miss, which are
    // within the precision of each other.
    QVERIFY2(*search.capacity() <= truth, qPrintable(search.summary()));
    QVERIFY2(*search.lowestMissedRate() > truth, qPrintable(search.summary()));
    QVERIFY2(*search.capacity() >= truth * (1 - precision / 100), qPrintable(search.summary()));
    QVERIFY(*search.bracketPercent() <= precision);
    // Bisection: a bracket of a factor 2 down to 5 % takes four steps, the
    // opening ones at most a handful.
    QVERIFY2(search.steps.size() <= 12, qPrintable(QString::number(search.steps.size())));
    QVERIFY(search.summary().startsWith(QString::number(*search.capacity(), 'f', 0)));
}

void TestCapacitySearch::findsWhereGrowingLatencyReachesTheBound_data() {
    QTest::addColumn<double>("boundMs");
    QTest::newRow("5 ms") << 5.0;
    QTest::newRow("20 ms") << 20.0;
    QTest::newRow("1.5 ms") << 1.5;
}

void TestCapacitySearch::findsWhereGrowingLatencyReachesTheBound() {
    // latency = 1 ms / (1 - r / 10000): the bound is reached at
    // r = 10000 (1 - 1 ms / bound).
    QFETCH(double, boundMs);
    Model model;
    model.p99Ms = [](double rate) {
        return rate < 10000 ? 1.0 / (1.0 - rate / 10000) : 1e6;
    };
    model.sentMeanMs = model.p99Ms;
    const double truth = 10000 * (1 - 1.0 / boundMs);
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(boundMs), model, 9800, stored);
    QCOMPARE(stopText(search), QStringLiteral("precision"));
    QVERIFY2(*search.capacity() <= truth && *search.capacity() >= truth * 0.95,
             qPrintable(search.summary()));
    QVERIFY(*search.lowestMissedRate() > truth);
}

void TestCapacitySearch::boundBelowTheUnloadedLatencyMeetsNoRate() {
    // 8 ms at any load it can carry: no rate meets 5 ms, and lower load does
    // not bring it nearer, so the search ends after a few steps and says so
    // with the lowest step's figures.
    Model model = cliff(2000, 8.0);
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 2000, stored);
    QCOMPARE(stopText(search), QStringLiteral("no-rate-meets"));
    QVERIFY(!search.capacity());
    QVERIFY2(search.steps.size() <= 4, qPrintable(QString::number(search.steps.size())));
    QVERIFY2(search.summary().startsWith(QStringLiteral("no rate meets it: at ")),
             qPrintable(search.summary()));
    QVERIFY2(search.summary().contains(QStringLiteral("(the lowest step) p99 8.00 ms > 5 ms")),
             qPrintable(search.summary()));
}

void TestCapacitySearch::latencyThatKeepsFallingStopsAtTheFloor() {
    // Every quarter of the rate takes a third off the excess, yet the bound
    // is never reached: the search gives up at 1/64 of its first step.
    Model model;
    model.p99Ms = [](double rate) {
        return 5.0 * (1.0 + 10 * std::sqrt(rate / 1000));
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 1000, stored);
    QCOMPARE(stopText(search), QStringLiteral("no-rate-meets"));
    const auto lowest =
        std::min_element(search.steps.begin(), search.steps.end(),
                         [](const auto& a, const auto& b) { return a.rate < b.rate; });
    QVERIFY(lowest->rate <= 1000 * kCapacityFloorFraction);
    QVERIFY(lowest->rate >= 1000 * kCapacityFloorFraction / 4);
}

void TestCapacitySearch::stopsWhenTheClientCpuIsTheLimit() {
    // The server would take 50000 req/s; the client cannot offer more than
    // 20000, and misses above for it. Asked three times, it stops there.
    Model model = cliff(50000, 1.0);
    const auto server = model.p99Ms;
    model.clientLate = [](double rate) {
        return rate >= 20000;
    };
    model.p99Ms = [server](double rate) {
        return rate >= 20000 ? 40.0 : server(rate);
    };
    model.achieved = [](double rate) {
        return std::min(rate, 20000.0);
    };
    model.clientCpuLoad = [](double rate) {
        return rate >= 20000 ? 1.0 : 0.8;
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 16000, stored);
    QCOMPARE(stopText(search), QStringLiteral("client-limited"));
    QVERIFY(search.clientLimited);
    QVERIFY(search.steps[*search.clientLimited].rate >= 20000);
    QCOMPARE(search.steps.size(), size_t(2 + kCapacityClientRetries));
    for (size_t i = 1; i < search.steps.size(); ++i)
        QCOMPARE(search.steps[i].rate, 16000.0 * 4 / 3);
    // Not the server's capacity: a lower bound, said so.
    QVERIFY2(search.summary().startsWith(QStringLiteral("at least 16000 req/s: the client was "
                                                        "the limit at 21333 req/s")),
             qPrintable(search.summary()));
    QVERIFY(search.summary().contains(QStringLiteral("could not keep the schedule")));
}

void TestCapacitySearch::aLateClientIsAskedAgainThenCountsAsAMiss() {
    // Other load keeps the client from its CPU in the first attempt at one
    // rate: asked again, the step is the server's. A client late in every
    // attempt that still offered the rate misses there, said so.
    Model model = cliff(900, 1.0);
    int late = 0;
    int slow = 0;
    const auto server = model.p99Ms;
    // The step at 750 req/s: its first attempt late and slow.
    model.clientLate = [&late](double rate) {
        return rate == 750 && late++ == 0;
    };
    model.p99Ms = [&slow, server](double rate) {
        return rate == 750 && slow++ == 0 ? 30.0 : server(rate);
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 1000, stored);
    QCOMPARE(stopText(search), QStringLiteral("precision"));
    QCOMPARE(search.steps[1].judgement.verdict, StepVerdict::ClientLimited);
    QCOMPARE(search.steps[2].rate, search.steps[1].rate);
    QVERIFY2(*search.capacity() > 855 && *search.capacity() <= 900, qPrintable(search.summary()));

    // Late at 1000 req/s and above in every attempt, the server slow there
    // too (from the actual send): a miss, said so.
    Model lateEveryTime = cliff(2000, 1.0);
    lateEveryTime.clientLate = [](double rate) {
        return rate >= 1000;
    };
    lateEveryTime.p99Ms = [](double rate) {
        return rate >= 1000 ? 9.0 : 1.0;
    };
    const CapacitySearch lateSearch = searchModel(capacityPlan(5), lateEveryTime, 1600, stored);
    QCOMPARE(stopText(lateSearch), QStringLiteral("precision"));
    QVERIFY2(*lateSearch.capacity() < 1000 && *lateSearch.lowestMissedRate() >= 1000,
             qPrintable(lateSearch.summary()));
    QVERIFY2(lateSearch.summary().contains(
                 QStringLiteral("while the client could not keep the schedule, in 3 attempts")),
             qPrintable(lateSearch.summary()));

    // The same, but the server answered each request within the bound once
    // sent: the client's lateness alone missed it. Not the server's capacity.
    Model onlyLate = lateEveryTime;
    onlyLate.sentP99Ms = [](double) {
        return 1.0;
    };
    const CapacitySearch onlyLateSearch = searchModel(capacityPlan(5), onlyLate, 1600, stored);
    QCOMPARE(stopText(onlyLateSearch), QStringLiteral("client-limited"));
    QVERIFY2(onlyLateSearch.summary().contains(QStringLiteral("the client was the limit at ")),
             qPrintable(onlyLateSearch.summary()));

    // Late in every attempt above a server's capacity of 1000 req/s, which
    // took no more (the achieved rate fell short of the offered) and answered
    // slowly once sent, while the client's thread was mostly off its CPU
    // (other load's wake-ups, not its own work): the server's miss.
    Model saturated = cliff(1000, 1.0);
    saturated.clientLate = [](double rate) {
        return rate > 1000;
    };
    const CapacitySearch saturatedSearch = searchModel(capacityPlan(5), saturated, 1000, stored);
    QCOMPARE(stopText(saturatedSearch), QStringLiteral("precision"));
    QVERIFY2(*saturatedSearch.capacity() >= 950 && *saturatedSearch.capacity() <= 1000 &&
                 *saturatedSearch.lowestMissedRate() > 1000,
             qPrintable(saturatedSearch.summary()));

    // The budget spent on the first attempt at 1600 req/s (the first step,
    // after two steps' budget): asked once, it counts neither as a miss nor
    // as the client's limit; the search stops at its budget with no answer.
    const CapacitySearch spent = searchModel(capacityPlan(5, 5, 2), lateEveryTime, 1600, stored);
    QCOMPARE(stopText(spent), QStringLiteral("step-budget"));
    QCOMPARE(spent.steps.size(), size_t(2));
    QCOMPARE(spent.steps[1].rate, spent.steps[0].rate);
    QVERIFY(spent.steps[0].askedAgain);
    QCOMPARE(spent.steps[1].judgement.verdict, StepVerdict::ClientLimited);
    QVERIFY2(!spent.lowestMissed && !spent.capacity(), qPrintable(spent.summary()));
    QVERIFY2(spent.summary().startsWith(
                 QStringLiteral("no rate met it before the step budget was spent: at 1600 req/s")),
             qPrintable(spent.summary()));
}

void TestCapacitySearch::aMissInTheTailAloneIsAskedAgain() {
    // A stall of the machine in the first step at 953 req/s (the third: 1100
    // misses, 825 meets, then their geometric mean): its p99 far over the
    // bound, its median at the server's 1 ms. Asked again, the step meets,
    // and the search goes on from it as if the stall never was.
    Model model = cliff(1000, 1.0);
    const double stalled = std::sqrt(825.0 * 1100.0);
    int p99Calls = 0;
    int p50Calls = 0;
    const auto server = model.p99Ms;
    model.p99Ms = [&p99Calls, stalled, server](double rate) {
        return std::fabs(rate - stalled) < 0.01 && p99Calls++ == 0 ? 100.0 : server(rate);
    };
    model.p50Ms = [&p50Calls, stalled, server](double rate) {
        return std::fabs(rate - stalled) < 0.01 && p50Calls++ == 0 ? 1.0 : server(rate);
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 1100, stored);
    QCOMPARE(stopText(search), QStringLiteral("precision"));
    QCOMPARE(search.steps[2].rate, stalled);
    QVERIFY(search.steps[2].judgement.tailOnly);
    QVERIFY(search.steps[2].askedAgain);
    QCOMPARE(search.steps[3].rate, stalled);
    QCOMPARE(search.steps[3].judgement.verdict, StepVerdict::Met);
    QVERIFY2(*search.capacity() >= 950 && *search.capacity() <= 1000, qPrintable(search.summary()));
    // A server that misses in the tail every time (a stop-the-world pause)
    // misses there after the second asking.
    Model pausing = cliff(1000, 1.0);
    pausing.p99Ms = [](double rate) {
        return rate >= 900 ? 20.0 : 1.0;
    };
    pausing.p50Ms = [](double) {
        return 1.0;
    };
    const CapacitySearch paused = searchModel(capacityPlan(5), pausing, 1000, stored);
    QCOMPARE(stopText(paused), QStringLiteral("precision"));
    QVERIFY2(*paused.capacity() < 900 && *paused.lowestMissedRate() >= 900,
             qPrintable(paused.summary()));
}

void TestCapacitySearch::stopsWhenTheConnectionsAreTheLimit() {
    // A server that answers every request in 2 ms however many come, behind
    // 50 connections: they carry at most 25000 req/s, the server far more.
    Model model;
    model.sentMeanMs = [](double) {
        return 2.0;
    };
    model.achieved = [](double rate) {
        return std::min(rate, 25000.0);
    };
    model.p99Ms = [](double rate) {
        return rate <= 25000 ? 2.2 : 2.2 + (rate - 25000) / 10;
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 25000, stored);
    QCOMPARE(stopText(search), QStringLiteral("client-limited"));
    QVERIFY2(search.summary().contains(QStringLiteral("all 50 connections were busy")),
             qPrintable(search.summary()));
}

void TestCapacitySearch::busyConnectionsWaitingForASlowServerAreItsMiss() {
    // A server of capacity 900 req/s behind 50 connections, and a client
    // that other load keeps from its CPU now and then. Above 900 the queue is
    // the server's: every connection waits 60 ms for it (900 x 60 ms = 54
    // busy), the rate it achieves is its own. The client's lateness there is
    // no reason to call the server's limit the client's.
    Model model = cliff(900, 1.0);
    model.sentMeanMs = [](double rate) {
        return rate <= 900 ? 1.0 : 60.0;
    };
    model.clientLate = [](double rate) {
        return rate > 900;
    };
    std::vector<PointResult> stored;
    const CapacitySearch search = searchModel(capacityPlan(5), model, 1000, stored);
    QCOMPARE(stopText(search), QStringLiteral("precision"));
    const double truth = 900 * (1 + (5.0 - 1.0) / kQueueMs);
    QVERIFY2(*search.capacity() <= truth && *search.capacity() >= 0.95 * truth,
             qPrintable(search.summary()));
    QVERIFY2(search.summary().contains(QStringLiteral("the server's limit")),
             qPrintable(search.summary()));
    // A miss at once: no step above the capacity was asked again.
    for (const CapacityStepRecord& step : search.steps)
        QVERIFY2(!step.askedAgain, qPrintable(search.summary()));
}

void TestCapacitySearch::anAttemptAskedAgainIsNotJudgedForConnections() {
    // Two connections at 2 ms carry 1000 req/s. The first step, at 900 req/s,
    // missed in the tail once (a stall) with both connections busy; asked
    // again it met. The attempt that did not count says nothing about the
    // connections: the search goes on above 900.
    Model model;
    model.sentMeanMs = [](double) {
        return 2.0;
    };
    model.achieved = [](double rate) {
        return std::min(rate, 1000.0);
    };
    int attempts = 0;
    model.p99Ms = [&attempts](double rate) {
        if (rate == 900 && attempts++ == 0)
            return 30.0;
        return rate <= 1000 ? 2.2 : 2.2 + (rate - 1000);
    };
    model.p50Ms = [](double rate) {
        return rate <= 1000 ? 2.0 : 2.0 + (rate - 1000);
    };
    SweepPlan plan = capacityPlan(5);
    plan.rateConnections = 2;
    std::vector<PointResult> steps{modelStep(model, 900, 1, 2), modelStep(model, 900, 2, 2)};
    std::vector<const PointResult*> pointers{&steps[0], &steps[1]};
    const CapacitySearch search = capacitySearch(plan, steps[0].targetId, 0, pointers);
    QVERIFY(search.steps[0].askedAgain);
    QVERIFY2(!search.finished(), qPrintable(search.summary()));
    QCOMPARE(*search.capacity(), 900.0);
    QCOMPARE(*search.nextRate, 1200.0);
}

void TestCapacitySearch::aMetStepAboveAMissDoesNotCount() {
    const SweepPlan plan = capacityPlan(5);
    Model model = cliff(1000, 1.0);
    std::vector<PointResult> steps{modelStep(model, 800, 1, 50), modelStep(model, 1200, 2, 50),
                                   modelStep(model, 1000, 3, 50)};
    // A lucky step above the miss at 1200.
    steps.push_back(modelStep(cliff(2000, 1.0), 1400, 4, 50));
    std::vector<const PointResult*> pointers;
    for (const PointResult& step : steps)
        pointers.push_back(&step);
    const CapacitySearch search = capacitySearch(plan, steps[0].targetId, 0, pointers);
    QCOMPARE(*search.capacity(), 1000.0);
    QCOMPARE(*search.lowestMissedRate(), 1200.0);
    QVERIFY(search.steps[3].inconsistent);
    QVERIFY(!search.finished());
    QCOMPARE(*search.nextRate, std::sqrt(1000.0 * 1200.0));
}

void TestCapacitySearch::stopsAtTheStepBudget() {
    std::vector<PointResult> stored;
    const CapacitySearch search =
        searchModel(capacityPlan(5, 0.1, 4), cliff(1000, 1.0), 700, stored);
    QCOMPARE(stopText(search), QStringLiteral("step-budget"));
    QCOMPARE(search.steps.size(), size_t(4));
    QVERIFY(*search.capacity() <= 1000 && *search.lowestMissedRate() > 1000);
    QVERIFY(search.summary().endsWith(QStringLiteral("step budget spent")));
}

void TestCapacitySearch::failuresAndAchievedShareMiss() {
    CapacityObjective objective;
    objective.boundMs = 5;
    PointResult step = modelStep(cliff(1000, 1.0), 900, 1, 50);
    step.failed = 9; // of 1800: 0.5 %
    QCOMPARE(judgeCapacityStep(step, objective).verdict, StepVerdict::Met);
    objective.maxFailedPercent = 0.1;
    StepJudgement judged = judgeCapacityStep(step, objective);
    QCOMPARE(judged.verdict, StepVerdict::Missed);
    QCOMPARE(judged.why, QStringLiteral("failed 0.5 % > 0.1 %"));
    QCOMPARE(judged.excess, 5.0);
    objective.maxFailedPercent.reset();
    // 1791 successful in 2 s at 900 offered: 99.5 % achieved.
    objective.minAchievedPercent = 99.9;
    judged = judgeCapacityStep(step, objective);
    QCOMPARE(judged.verdict, StepVerdict::Missed);
    QCOMPARE(judged.why, QStringLiteral("achieved 99.5 % of offered < 99.9 %"));
    objective.minAchievedPercent = 95;
    QCOMPARE(judgeCapacityStep(step, objective).verdict, StepVerdict::Met);
    // Nothing answered.
    PointResult silent = step;
    silent.total = {};
    judged = judgeCapacityStep(silent, objective);
    QCOMPARE(judged.verdict, StepVerdict::Missed);
    QVERIFY(judged.why.startsWith(QStringLiteral("no successful response")));
}

void TestCapacitySearch::stepLongEnoughForThePercentile_data() {
    QTest::addColumn<double>("percentile");
    QTest::addColumn<double>("rate");
    QTest::addColumn<double>("seconds");
    // Ten requests beyond the percentile's rank: p99 at 1000 req/s needs
    // 1000 requests, one second.
    QTest::newRow("p99 at 1000/s") << 99.0 << 1000.0 << 1.0;
    QTest::newRow("p99 at 250/s") << 99.0 << 250.0 << 4.0;
    QTest::newRow("p99.9 at 2000/s") << 99.9 << 2000.0 << 5.0;
    QTest::newRow("p99.99 at 1000/s: the longest") << 99.99 << 1000.0 << 30.0;
    QTest::newRow("p50 at 1000/s: the shortest") << 50.0 << 1000.0 << 1.0;
    QTest::newRow("p99 at 100000/s: the shortest") << 99.0 << 100000.0 << 1.0;
}

void TestCapacitySearch::stepLongEnoughForThePercentile() {
    QFETCH(double, percentile);
    QFETCH(double, rate);
    QFETCH(double, seconds);
    CapacityPlan plan;
    plan.objective.percentile = percentile;
    QCOMPARE(capacityStepSeconds(plan, rate), seconds);
    // The requests beyond the percentile's rank, unless the step was cut short.
    const double beyond = rate * capacityStepSeconds(plan, rate) * (1 - percentile / 100);
    if (seconds > plan.minStepSeconds && seconds < plan.maxStepSeconds)
        QCOMPARE(std::round(beyond), double(kCapacityTailSamples));
}

void TestCapacitySearch::stepPlanAndProbePlan() {
    SweepPlan plan = capacityPlan(5);
    plan.warmupSeconds = 0.5;
    plan.rateConnections = 64;
    plan.arrival = loadscope::engine::Arrival::Poisson;
    const SweepPlan step = capacityStepPlan(plan, 2000);
    QCOMPARE(step.levelKind, SweepLevelKind::Rate);
    QCOMPARE(step.rateConnections, 64);
    QCOMPARE(step.arrival, loadscope::engine::Arrival::Poisson);
    QCOMPARE(step.warmupSeconds, 0.5);
    QCOMPARE(step.limit, PointLimit::Duration);
    QCOMPARE(step.durationSeconds, 1.0);
    const SweepPlan probe = capacityProbePlan(plan);
    QCOMPARE(probe.levelKind, SweepLevelKind::Concurrency);
    QCOMPARE(probe.concurrencyLevels, std::vector<int>{64});
    QCOMPARE(probe.durationSeconds, plan.capacity.minStepSeconds);
    QCOMPARE(probe.warmupSeconds, 0.5);
    // Which plan a point runs with.
    SweepPoint point{0, QUuid(), 64, 0, 0, 0};
    QCOMPARE(pointPlan(plan, point), probe);
    point.rate = 2000;
    point.capacityStep = 3;
    QCOMPARE(pointPlan(plan, point), step);
    SweepPlan rates;
    rates.levelKind = SweepLevelKind::Rate;
    QCOMPARE(pointPlan(rates, point), rates);
}

void TestCapacitySearch::objectiveTextForms_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("percentile");
    QTest::addColumn<double>("boundMs");
    QTest::addColumn<QString>("shown");
    QTest::newRow("p99=5ms") << "p99=5ms" << 99.0 << 5.0 << QStringLiteral("p99 ≤ 5 ms");
    QTest::newRow("p99.9=800us") << "p99.9=800us" << 99.9 << 0.8
                                 << QStringLiteral("p99.9 ≤ 0.8 ms");
    QTest::newRow("P50 <= 0.2s") << "P50 <= 0.2s" << 50.0 << 200.0
                                 << QStringLiteral("p50 ≤ 200 ms");
    QTest::newRow("p99.99≤12") << "p99.99≤12" << 99.99 << 12.0 << QStringLiteral("p99.99 ≤ 12 ms");
    QTest::newRow("p90=250000ns") << "p90=250000ns" << 90.0 << 0.25
                                  << QStringLiteral("p90 ≤ 0.25 ms");
}

void TestCapacitySearch::objectiveTextForms() {
    QFETCH(QString, text);
    QFETCH(double, percentile);
    QFETCH(double, boundMs);
    QFETCH(QString, shown);
    const auto parsed = parseLatencyObjective(text);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->percentile, percentile);
    QVERIFY(std::fabs(parsed->boundMs - boundMs) < 1e-12);
    QCOMPARE(objectiveText(*parsed), shown);
    CapacityObjective full = *parsed;
    full.maxFailedPercent = 0.1;
    full.minAchievedPercent = 95;
    QCOMPARE(objectiveText(full), shown + QStringLiteral(", failed ≤ 0.1 %, achieved ≥ 95 % of "
                                                         "offered"));
    QVERIFY(objectiveAsciiText(full).contains(QStringLiteral(" <= ")));
    QVERIFY(!objectiveAsciiText(full).contains(QStringLiteral("≤")));
}

void TestCapacitySearch::badObjectivesRefusedInOneLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::newRow("p101") << "p101=5ms"
                          << "'p101=5ms': the objective's percentile must be from p50 to p99.99, "
                             "not p101";
    QTest::newRow("p100") << "p100=5ms"
                          << "must be from p50 to p99.99, not p100";
    QTest::newRow("p49") << "p49=5ms"
                         << "must be from p50 to p99.99, not p49";
    QTest::newRow("negative") << "p99=-5ms"
                              << "'p99=-5ms': the objective's latency bound must be above 0 ms "
                                 "and at most an hour, not -5 ms";
    QTest::newRow("zero") << "p99=0ms"
                          << "must be above 0 ms";
    QTest::newRow("unit") << "p99=5parsecs"
                          << "the bound's unit must be s, ms, us or ns";
    QTest::newRow("no percentile") << "99=5ms"
                                   << "is not an objective";
    QTest::newRow("no bound") << "p99"
                              << "is not an objective";
    QTest::newRow("words") << "fast please"
                           << "is not an objective";
}

void TestCapacitySearch::badObjectivesRefusedInOneLine() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    const auto parsed = parseLatencyObjective(text);
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().message.contains(problem), qPrintable(parsed.error().message));
    QVERIFY(!parsed.error().message.contains(QLatin1Char('\n')));
}

void TestCapacitySearch::planRefusesBadSearchSettings_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("problem");
    QTest::newRow("precision 0") << "precision" << 0.0 << "precision must be 0.1 to 50 %";
    QTest::newRow("precision 60") << "precision" << 60.0 << "precision must be 0.1 to 50 %";
    QTest::newRow("one step") << "steps" << 1.0 << "takes 2 to 100 steps, not 1";
    QTest::newRow("short step") << "minStep" << 0.01 << "a capacity step lasts";
    QTest::newRow("longest below shortest") << "maxStep" << 0.5 << "is shorter than the shortest";
    QTest::newRow("failed share") << "maxFailed" << 101.0 << "failed share bound must be 0 to 100";
    QTest::newRow("achieved share") << "minAchieved" << 0.0 << "achieved share";
    QTest::newRow("connections") << "connections" << 0.0 << "connections 0 is out of range";
    QTest::newRow("percentile") << "percentile" << 99.999 << "not p99.999";
}

void TestCapacitySearch::planRefusesBadSearchSettings() {
    QFETCH(QString, field);
    QFETCH(double, value);
    QFETCH(QString, problem);
    SweepPlan plan = capacityPlan(5);
    QVERIFY(validateSweepPlan(plan));
    if (field == u"precision")
        plan.capacity.precisionPercent = value;
    else if (field == u"steps")
        plan.capacity.maxSteps = int(value);
    else if (field == u"minStep")
        plan.capacity.minStepSeconds = value;
    else if (field == u"maxStep")
        plan.capacity.maxStepSeconds = value;
    else if (field == u"maxFailed")
        plan.capacity.objective.maxFailedPercent = value;
    else if (field == u"minAchieved")
        plan.capacity.objective.minAchievedPercent = value;
    else if (field == u"connections")
        plan.rateConnections = int(value);
    else if (field == u"percentile")
        plan.capacity.objective.percentile = value;
    const auto checked = validateSweepPlan(plan);
    QVERIFY(!checked);
    QVERIFY2(checked.error().message.contains(problem), qPrintable(checked.error().message));
}

QTEST_GUILESS_MAIN(TestCapacitySearch)
#include "tst_capacity_search.moc"
