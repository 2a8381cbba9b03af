// The intended start times of a fixed-rate run: evenly spaced or Poisson at
// the asked rate, never skipped, and the backlog of times due but not taken.
#include "engine/arrival_schedule.h"

#include <QTest>
#include <cmath>
#include <limits>
#include <vector>

using namespace loadscope::engine;

namespace {

struct GapFigures {
    double meanNs = 0;
    double coefficientOfVariation = 0;
};

// The gaps between `count` consecutive times, each taken as a request would be.
GapFigures gapsOf(ArrivalSchedule& schedule, int count) {
    std::vector<double> gaps;
    int64_t previous = schedule.take();
    for (int i = 0; i < count; ++i) {
        const int64_t at = schedule.take();
        gaps.push_back(double(at - previous));
        previous = at;
    }
    double sum = 0;
    for (double g : gaps)
        sum += g;
    const double mean = sum / double(gaps.size());
    double squares = 0;
    for (double g : gaps)
        squares += (g - mean) * (g - mean);
    const double sd = std::sqrt(squares / double(gaps.size() - 1));
    return {mean, sd / mean};
}

} // namespace

class TestArrivalSchedule : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // wrk2's schedule: one time every 1 / rate, exactly, from the first.
    void constantArrivalIsEvenlySpaced_data() {
        QTest::addColumn<double>("rate");
        QTest::newRow("1k/s") << 1000.0;
        QTest::newRow("3/s (a gap that is no whole ns)") << 3.0;
        QTest::newRow("50k/s") << 50000.0;
    }
    void constantArrivalIsEvenlySpaced() {
        QFETCH(double, rate);
        ArrivalSchedule schedule(Arrival::Constant, rate, 1'000'000, 1);
        QCOMPARE(schedule.nextNs(), int64_t(1'000'000));
        const GapFigures g = gapsOf(schedule, 10000);
        QVERIFY2(std::abs(g.meanNs - 1e9 / rate) <= 1.0, qPrintable(QString::number(g.meanNs)));
        QVERIFY2(g.coefficientOfVariation < 1e-6,
                 qPrintable(QString::number(g.coefficientOfVariation)));
        // No drift: the 10001st time is 10001 gaps after the first, to the ns.
        QCOMPARE(schedule.nextNs(), 1'000'000 + int64_t(std::llround(10001 * 1e9 / rate)));
    }

    // Exponential gaps: mean 1 / rate and a coefficient of variation of 1.
    // Over 100,000 gaps the sample mean's standard error is 0.3 % of the
    // mean and that of the CV about 0.5 %, so 2 % bounds are 4 sigma wide.
    void poissonGapsHaveTheMeanAndSpreadOfAnExponential_data() {
        QTest::addColumn<double>("rate");
        QTest::addColumn<qulonglong>("seed");
        QTest::newRow("1k/s") << 1000.0 << 1ull;
        QTest::newRow("50k/s, another seed") << 50000.0 << 77ull;
    }
    void poissonGapsHaveTheMeanAndSpreadOfAnExponential() {
        QFETCH(double, rate);
        QFETCH(qulonglong, seed);
        ArrivalSchedule schedule(Arrival::Poisson, rate, 0, seed);
        QVERIFY(schedule.nextNs() > 0); // the first arrival is one gap in
        const GapFigures g = gapsOf(schedule, 100000);
        QVERIFY2(std::abs(g.meanNs * rate / 1e9 - 1.0) < 0.02,
                 qPrintable(QStringLiteral("mean gap %1 ns").arg(g.meanNs)));
        QVERIFY2(std::abs(g.coefficientOfVariation - 1.0) < 0.02,
                 qPrintable(QStringLiteral("CV %1").arg(g.coefficientOfVariation)));
    }

    // The same seed gives the same times; another seed, others.
    void poissonTimesFollowTheSeed() {
        ArrivalSchedule a(Arrival::Poisson, 1000, 0, 5);
        ArrivalSchedule b(Arrival::Poisson, 1000, 0, 5);
        ArrivalSchedule c(Arrival::Poisson, 1000, 0, 6);
        bool differs = false;
        for (int i = 0; i < 100; ++i) {
            const int64_t at = a.take();
            QCOMPARE(b.take(), at);
            differs = differs || c.take() != at;
        }
        QVERIFY(differs);
    }

    // Falling behind skips nothing: the backlog counts every time due and
    // not taken, and taking them hands out each in order, however late.
    void aScheduleThatFallsBehindKeepsEveryTime_data() {
        QTest::addColumn<int>("arrival");
        QTest::newRow("constant") << int(Arrival::Constant);
        QTest::newRow("poisson") << int(Arrival::Poisson);
    }
    void aScheduleThatFallsBehindKeepsEveryTime() {
        QFETCH(int, arrival);
        const auto model = Arrival(arrival);
        ArrivalSchedule schedule(model, 1000, 0, 3);
        ArrivalSchedule reference(model, 1000, 0, 3);
        // The times up to 0.5 s, counted on the reference one by one.
        std::vector<int64_t> expected;
        while (reference.nextNs() <= 500'000'000)
            expected.push_back(reference.take());
        QVERIFY(expected.size() > 400 && expected.size() < 600);
        QCOMPARE(schedule.backlog(500'000'000), uint64_t(expected.size()));
        QVERIFY(schedule.due(500'000'000));
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(schedule.take(), expected[i]);
            QCOMPARE(schedule.backlog(500'000'000), uint64_t(expected.size() - i - 1));
        }
        QVERIFY(!schedule.due(500'000'000));
        QCOMPARE(schedule.taken(), uint64_t(expected.size()));
        // Taking ahead of the backlog count moves that count along.
        schedule.take();
        QCOMPARE(schedule.backlog(schedule.nextNs() - 1), uint64_t(0));
        QCOMPARE(schedule.backlog(schedule.nextNs()), uint64_t(1));
    }

    void aTimeBeyondNanosecondsIsNeverDue_data() {
        QTest::addColumn<int>("arrival");
        QTest::addColumn<double>("rate");
        QTest::newRow("constant, 1e-10/s") << int(Arrival::Constant) << 1e-10;
        QTest::newRow("poisson, 1e-300/s") << int(Arrival::Poisson) << 1e-300;
        QTest::newRow("constant, 1e-300/s") << int(Arrival::Constant) << 1e-300;
    }
    // A gap longer than an int64_t of nanoseconds holds (a rate the engine
    // refuses, but a schedule must not wrap it round): the next time is never,
    // not a negative one due at once, again and again.
    void aTimeBeyondNanosecondsIsNeverDue() {
        QFETCH(int, arrival);
        QFETCH(double, rate);
        ArrivalSchedule schedule(Arrival(arrival), rate, 1'000'000, 5);
        if (Arrival(arrival) == Arrival::Constant)
            QCOMPARE(schedule.take(), int64_t(1'000'000));
        QCOMPARE(schedule.nextNs(), std::numeric_limits<int64_t>::max());
        QVERIFY(!schedule.due(std::numeric_limits<int64_t>::max() - 1));
        QCOMPARE(schedule.backlog(int64_t(1) << 62), uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestArrivalSchedule)
#include "tst_arrival_schedule.moc"
