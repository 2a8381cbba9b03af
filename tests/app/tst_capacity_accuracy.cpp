// The capacity search with the real engine, through SweepRunner, against
// servers whose capacity is known (tests/support/fixed_delay_server.h): one
// that serves one request at a time in D = 5 ms (capacity 1000/D = 200/s),
// the same with 4 workers (800/s), and one whose delay of D grows by 0.5 ms
// per request/s above a rate, reaching 4 D at 600/s. The objective is p99 <=
// 4 D = 20 ms: a D of several milliseconds leaves 3 D (15 ms) for what the
// machine's scheduling adds to a request, so that a busy machine moves the
// figure little and the truth stays the server's. Each server is searched
// three times; every search must end at its precision with an answer within
// 10 % below the truth and not above it.
//
// Each server is searched by a sweep of its own, one after the other: run at
// once, one sweep's start-ups and bookkeeping fell into another's steps and
// moved its answers by more than 10 % in most runs on a busy machine.
#include "app/session/capacity_search.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "fixed_delay_server.h"
#include "sweep_test_session.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QTest>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <sys/resource.h>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

constexpr auto kDelay = 5ms;
constexpr auto kBound = 4 * kDelay; // the objective: p99 <= 4 D
constexpr double kPrecisionPercent = 5;
constexpr int kRepetitions = 3;
constexpr double kWarmupSeconds = 0.2;
constexpr int kSweepTimeoutMs = 120'000;
constexpr int kNiceness = -10;

double ms(std::chrono::nanoseconds duration) {
    return std::chrono::duration<double, std::milli>(duration).count();
}

struct KnownServer {
    QString name;
    std::unique_ptr<testing::FixedDelayServer> server;
    testing::FixedDelayServer::Options options;
    std::unique_ptr<app::SessionDocument> document;
    std::unique_ptr<app::SweepRunner> runner;
    std::optional<app::SweepOutcome> outcome;
};

// The highest offered rate a step of `seconds` (its warm-up included) can
// meet the objective at. A growing server's delay follows its load within a
// few of its windows: its capacity. A worker server above its capacity c
// builds its queue from empty (it drops it when the last connection closes):
// at r its wait grows by (r / c - 1) x t, and stays within the bound's
// slack, bound - D, over the whole step up to r = c (1 + (bound - D) /
// seconds). No step can meet above that, whatever the machine does.
double highestRateAStepCanMeet(const KnownServer& known, double seconds) {
    const double truth = known.server->capacityWithin(kBound);
    if (known.options.workers == 0)
        return truth;
    return truth * (1 + (ms(kBound) - ms(kDelay)) / 1000 / seconds);
}

app::Session sessionOf(const KnownServer& known) {
    app::Session session;
    session.name = QStringLiteral("capacity of %1 at p99 <= 20 ms").arg(known.name);
    session.targets.push_back(
        test::httpTarget(known.name, app::DeploymentMode::Host, 0,
                         QStringLiteral("http://127.0.0.1:%1/").arg(known.server->port())));
    session.targets.back().http.keepAlive = true;
    session.baselineTargetId = session.targets.front().id;
    app::SweepPlan& plan = session.plan;
    plan.levelKind = app::SweepLevelKind::Capacity;
    // Many more connections than requests in flight at the capacity (at most
    // 800/s x 20 ms = 16): a miss is the server's queue, never every
    // connection busy (the client's limit).
    plan.rateConnections = 32;
    plan.threads = 1;
    plan.repetitions = kRepetitions;
    plan.warmupSeconds = kWarmupSeconds;
    plan.capacity.objective.percentile = 99;
    plan.capacity.objective.boundMs = ms(kBound);
    plan.capacity.precisionPercent = kPrecisionPercent;
    // Steps of 0.3 s after a warm-up of 0.2 s, in which a start held up by
    // the machine (a burst of late requests into a queue near its capacity)
    // drains: 240 requests at 800/s, 180 at 600/s; the single worker's of
    // 0.5 s, 100 requests at 200/s, so that one late answer is not its p99.
    plan.capacity.minStepSeconds = 0.2;
    plan.capacity.maxStepSeconds = known.options.workers == 1 ? 0.5 : 0.3;
    plan.capacity.maxSteps = 10;
    return session;
}

} // namespace

class TestCapacityAccuracy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void searchFindsEachKnownCapacityThreeTimes();
};

void TestCapacityAccuracy::initTestCase() {
    // The truth is the servers' and the search's, not the machine's: the
    // servers' and the client's threads (made after this, and so of this
    // niceness) come before other work on the machine, such as a build, that
    // would keep them from their CPU for tenths of a second. Where the test
    // may not raise its priority it runs as it is.
    errno = 0;
    if (::setpriority(PRIO_PROCESS, 0, kNiceness) != 0)
        qInfo("running at niceness %d: %s", ::getpriority(PRIO_PROCESS, 0), std::strerror(errno));
}

void TestCapacityAccuracy::searchFindsEachKnownCapacityThreeTimes() {
    std::vector<KnownServer> servers(3);
    servers[0].name = QStringLiteral("one worker");
    servers[0].options.delay = kDelay;
    servers[0].options.workers = 1;
    servers[1].name = QStringLiteral("four workers");
    servers[1].options = servers[0].options;
    servers[1].options.workers = 4;
    servers[2].name = QStringLiteral("growing delay");
    servers[2].options.delay = kDelay;
    // D below 580 req/s (its weighted mean), then 0.5 ms more per request/s:
    // 4 D at about 600/s. Steep, so that 15 ms of scheduling moves the rate
    // at the bound by 30 req/s at most, and below 580 the server is as fast
    // as unloaded. The mean over 50 ms follows a step's rate within its
    // warm-up and carries little of the step before.
    servers[2].options.growthAboveRate = 580;
    servers[2].options.delayGrowth = 500us;
    servers[2].options.loadWindow = 50ms;
    const std::array<double, 3> expected{200, 800, 600};
    for (size_t i = 0; i < servers.size(); ++i) {
        KnownServer& known = servers[i];
        known.server = std::make_unique<testing::FixedDelayServer>(known.options);
        QVERIFY(known.server->isListening());
        const double truth = known.server->capacityWithin(kBound);
        QVERIFY2(std::abs(truth - expected[i]) < 1, qPrintable(QString::number(truth)));
        known.document = std::make_unique<app::SessionDocument>();
        known.document->reset(sessionOf(known));
        QVERIFY(app::validateSweepPlan(known.document->session().plan));
        known.runner = std::make_unique<app::SweepRunner>(known.document.get());
    }

    QElapsedTimer took;
    took.start();
    // One server after the other.
    std::function<void(size_t)> start = [&](size_t i) {
        if (i >= servers.size())
            return;
        KnownServer& known = servers[i];
        QCoro::connect(known.runner->run(), known.runner.get(),
                       [&known, &start, i](const app::SweepOutcome& ended) {
                           known.outcome = ended;
                           start(i + 1);
                       });
    };
    start(0);
    const auto allEnded = [&servers] {
        return std::all_of(servers.begin(), servers.end(),
                           [](const KnownServer& known) { return known.outcome.has_value(); });
    };
    while (!allEnded() && took.elapsed() < kSweepTimeoutMs)
        QTest::qWait(10);
    if (!allEnded()) {
        for (KnownServer& known : servers)
            known.runner->cancel();
        for (int i = 0; i < 500 && !allEnded(); ++i)
            QTest::qWait(10);
    }
    qInfo("%d searches of each of 3 servers took %.1f s", kRepetitions,
          double(took.elapsed()) / 1000);

    QStringList problems;
    for (KnownServer& known : servers) {
        QVERIFY2(known.outcome, qPrintable(known.name + QStringLiteral(": did not end in time")));
        QVERIFY2(known.outcome->status == app::SweepOutcome::Status::Completed,
                 qPrintable(known.name + QStringLiteral(": ") + known.outcome->error));
        const app::Session& done = known.document->session();
        QVERIFY(app::missingPoints(done).empty());
        const std::vector<app::CapacitySearch> searches = app::capacitySearches(done);
        QCOMPARE(searches.size(), size_t(kRepetitions));
        const double truth = known.server->capacityWithin(kBound);
        for (const app::CapacitySearch& search : searches) {
            const QString line = QStringLiteral("%1, search %2 (truth %3 req/s): %4")
                                     .arg(known.name)
                                     .arg(search.repetition + 1)
                                     .arg(truth, 0, 'f', 1)
                                     .arg(search.summary());
            qInfo("%s", qPrintable(line));
            QString problem;
            if (search.stop != app::CapacityStop::Precision) {
                problem = QStringLiteral("did not stop at its precision");
            } else if (*search.bracketPercent() > kPrecisionPercent) {
                problem = QStringLiteral("wider than its precision");
            } else if (*search.capacity() < 0.9 * truth) {
                problem = QStringLiteral("more than 10 % below the truth");
            } else {
                const app::CapacityStepRecord& answer = search.steps[*search.highestMet];
                const double ceiling =
                    highestRateAStepCanMeet(known, answer.result->durationSeconds + kWarmupSeconds);
                if (*search.capacity() > ceiling)
                    problem = QStringLiteral("above the truth (at most %1 req/s in a step of "
                                             "%2 s)")
                                  .arg(ceiling, 0, 'f', 1)
                                  .arg(answer.result->durationSeconds + kWarmupSeconds);
            }
            if (!problem.isEmpty()) {
                problems << line + QStringLiteral(": ") + problem;
                for (const app::CapacityStepRecord& step : search.steps)
                    qInfo("  step %d at %.1f req/s: achieved %.1f, %s, %s", step.number, step.rate,
                          step.result->requestsPerSecond(),
                          qPrintable(app::stepVerdictId(step.judgement.verdict)),
                          qPrintable(step.judgement.why));
            }
            // Every step is kept: a rate sweep of its own, each step as long
            // as the plan gives the percentile.
            for (const app::CapacityStepRecord& step : search.steps) {
                QCOMPARE(step.result->capacityStep, step.number);
                QVERIFY(step.result->durationSeconds >=
                        0.95 * app::capacityStepSeconds(done.plan.capacity, step.rate));
            }
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestCapacityAccuracy)
#include "tst_capacity_accuracy.moc"
