// The capacity search with the real engine, through SweepRunner, against
// servers whose capacity is known (tests/support/fixed_delay_server.h): one
// that serves one request at a time in D = 1 ms (capacity 1000/s), the same
// with 4 workers (4000/s), and one whose delay of D grows by a known law
// above 2940 req/s (3000/s at 4 ms). The objective is p99 <= 4 D = 4 ms, and each
// target is searched three times, interleaved: every search must end at its
// precision with an answer within 10 % below the truth. The answers' ratio
// between the 4-worker server and the single one is their capacities'.
#include "app/session/capacity_comparison.h"
#include "app/session/capacity_search.h"
#include "app/session/session_document.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/sweep_runner.h"
#include "engine/load_run.h"
#include "fixed_delay_server.h"
#include "sweep_run_to_end.h"
#include "sweep_test_session.h"

#include <QElapsedTimer>
#include <QTest>
#include <limits>
#include <memory>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

constexpr auto kDelay = 1ms;
constexpr auto kBound = 4 * kDelay; // the objective: p99 <= 4 D
constexpr double kPrecisionPercent = 5;

struct KnownServer {
    QString name;
    std::unique_ptr<testing::FixedDelayServer> server;
};

// The corrected p99 (ms) of a light fixed-rate run against `server` (a
// quarter of a 1000/s capacity, one second): what the machine itself adds
// to a request when nothing queues.
double lightLoadP99Ms(const testing::FixedDelayServer& server) {
    app::Target target =
        test::httpTarget(QStringLiteral("light"), app::DeploymentMode::Host, 0,
                         QStringLiteral("http://127.0.0.1:%1/").arg(server.port()));
    target.http.keepAlive = true;
    app::SweepPlan plan;
    plan.levelKind = app::SweepLevelKind::Rate;
    plan.rateConnections = 16;
    plan.threads = 1;
    plan.warmupSeconds = 0.1;
    plan.durationSeconds = 1;
    auto draft = app::draftLoadSpec(target, 16, plan, 250);
    if (!draft)
        return std::numeric_limits<double>::infinity();
    draft->spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", server.port());
    engine::LoadRun run(draft->spec);
    run.start();
    const engine::RunResult result = run.wait();
    return double(result.total.valueAtPercentile(99)) / 1e6;
}

} // namespace

class TestCapacityAccuracy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void searchFindsEachKnownCapacityThreeTimes();
};

void TestCapacityAccuracy::searchFindsEachKnownCapacityThreeTimes() {
    std::vector<KnownServer> servers;
    testing::FixedDelayServer::Options one;
    one.delay = kDelay;
    one.workers = 1;
    servers.push_back(
        {QStringLiteral("one worker"), std::make_unique<testing::FixedDelayServer>(one)});
    testing::FixedDelayServer::Options four = one;
    four.workers = 4;
    servers.push_back(
        {QStringLiteral("four workers"), std::make_unique<testing::FixedDelayServer>(four)});
    testing::FixedDelayServer::Options growing;
    growing.delay = kDelay;
    // 3 ms more at 60 req/s above 2940: steep, so that a millisecond of
    // scheduling moves the rate at the bound by 20 req/s only.
    growing.growthAboveRate = 2940;
    growing.delayGrowth = 50us;
    growing.loadWindow = 100ms;
    servers.push_back(
        {QStringLiteral("growing delay"), std::make_unique<testing::FixedDelayServer>(growing)});

    // The truth, capacity at p99 <= 4 D, presumes a machine that adds well
    // under 3 D to a request's p99 when nothing queues. One too busy for that
    // (other builds, a load average of ten on two CPUs) has no such capacity
    // to find: the suite says so and measures nothing.
    const double light = lightLoadP99Ms(*servers[1].server);
    if (light > 2.0 * std::chrono::duration<double, std::milli>(kDelay).count())
        QSKIP(qPrintable(QStringLiteral("this machine adds too much to a request right now: p99 "
                                        "%1 ms at a quarter of a 1000 req/s capacity, over 2 D "
                                        "(rerun on a quieter machine)")
                             .arg(light, 0, 'f', 2)));

    app::Session session;
    session.name = QStringLiteral("capacity at p99 <= 4 ms");
    for (const KnownServer& known : servers) {
        QVERIFY(known.server->isListening());
        session.targets.push_back(
            test::httpTarget(known.name, app::DeploymentMode::Host, int(session.targets.size()),
                             QStringLiteral("http://127.0.0.1:%1/").arg(known.server->port())));
        session.targets.back().http.keepAlive = true;
    }
    session.baselineTargetId = session.targets.front().id;
    app::SweepPlan& plan = session.plan;
    plan.levelKind = app::SweepLevelKind::Capacity;
    plan.rateConnections = 16;
    plan.threads = 1;
    plan.repetitions = 3;
    plan.order = app::SweepOrder::Interleaved;
    // The growing server's rate (weighted over 100 ms) holds the earlier
    // step's for a while: two of its time constants leave 14 % of it, too
    // little to lift a step's rate over 2940 unless it is near it already.
    plan.warmupSeconds = 0.2;
    plan.capacity.objective.percentile = 99;
    plan.capacity.objective.boundMs = std::chrono::duration<double, std::milli>(kBound).count();
    plan.capacity.precisionPercent = kPrecisionPercent;
    plan.capacity.minStepSeconds = 0.25;
    plan.capacity.maxStepSeconds = 5;
    QVERIFY(app::validateSweepPlan(plan));

    app::SessionDocument document;
    document.reset(session);
    app::SweepRunner runner(&document);
    QElapsedTimer took;
    took.start();
    const app::SweepOutcome outcome = test::runToEnd(runner, 240'000);
    QVERIFY2(outcome.status == app::SweepOutcome::Status::Completed, qPrintable(outcome.error));
    qInfo("9 searches took %.1f s", double(took.elapsed()) / 1000);

    const app::Session& done = document.session();
    QVERIFY(app::missingPoints(done).empty());
    const std::vector<app::CapacitySearch> searches = app::capacitySearches(done);
    QCOMPARE(searches.size(), size_t(9));
    QStringList problems;
    for (const app::CapacitySearch& search : searches) {
        const int index = done.targetIndex(search.targetId);
        const double truth = servers[size_t(index)].server->capacityWithin(kBound);
        const QString line = QStringLiteral("%1, search %2 (truth %3 req/s): %4")
                                 .arg(servers[size_t(index)].name)
                                 .arg(search.repetition + 1)
                                 .arg(truth)
                                 .arg(search.summary());
        qInfo("%s", qPrintable(line));
        // Stopped at its precision, within 10 % below the truth; above it by
        // no more than the schedule's and the server's clocks could make it.
        QString problem;
        if (search.stop != app::CapacityStop::Precision)
            problem = QStringLiteral("did not stop at its precision");
        else if (*search.bracketPercent() > kPrecisionPercent)
            problem = QStringLiteral("wider than its precision");
        else if (*search.capacity() < 0.9 * truth)
            problem = QStringLiteral("more than 10 % below the truth");
        else if (*search.capacity() > 1.02 * truth)
            problem = QStringLiteral("above the truth");
        if (!problem.isEmpty()) {
            problems << line + QStringLiteral(": ") + problem;
            for (const app::CapacityStepRecord& step : search.steps)
                qInfo("  step %d at %.0f req/s: achieved %.0f, %s, %s", step.number, step.rate,
                      step.result->requestsPerSecond(),
                      qPrintable(app::stepVerdictId(step.judgement.verdict)),
                      qPrintable(step.judgement.why));
        }
        // Every step is kept: a rate sweep of its own, each step as long as
        // the percentile needs.
        for (const app::CapacityStepRecord& step : search.steps) {
            QCOMPARE(step.result->capacityStep, step.number);
            QVERIFY(step.result->durationSeconds >=
                    0.95 * app::capacityStepSeconds(plan.capacity, step.rate));
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    // Capacities compared as the comparison compares every figure: four
    // workers take four times the single one's rate, paired by repetition.
    const app::CapacityComparison comparison(done);
    const app::CapacityRow* fourWorkers = comparison.find(done.targets[1].id);
    QVERIFY(fourWorkers);
    QCOMPARE(fourWorkers->figures.statistics.n, 3);
    QVERIFY(fourWorkers->figures.vsBaselinePercent);
    QVERIFY2(*fourWorkers->figures.vsBaselinePercent > 250 &&
                 *fourWorkers->figures.vsBaselinePercent < 350,
             qPrintable(QString::number(*fourWorkers->figures.vsBaselinePercent)));
    QCOMPARE(fourWorkers->figures.method, app::ComparisonMethod::Paired);
    QCOMPARE(fourWorkers->figures.verdict, app::Verdict::Significant);
}

QTEST_GUILESS_MAIN(TestCapacityAccuracy)
#include "tst_capacity_accuracy.moc"
