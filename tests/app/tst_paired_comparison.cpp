// Paired and Welch intervals of a change, the verdict rules and the
// interquartile outlier flags, checked against reference values computed
// independently with python3 (no scipy): the t quantile by composite Simpson
// integration of the t density (200 000 panels) and bisection, the intervals
// and quartiles (Hyndman and Fan's definition 8) written out by hand in the
// script; quartiles of {3, 3, 6, 9, 9, 12, 15, 15} also as Go's benchstat
// stats package documents them (4.25 and 13.75).
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "session_test_data.h"

#include <QRegularExpression>
#include <QTest>
#include <cmath>

using namespace loadscope;
using namespace loadscope::app;

namespace {

#define QCOMPARE_NEAR(actual, expected, tolerance)                                                 \
    QVERIFY2(std::fabs((actual) - (expected)) <= (tolerance),                                      \
             qPrintable(QStringLiteral("%1 is %2, expected %3")                                    \
                            .arg(QStringLiteral(#actual))                                          \
                            .arg((actual), 0, 'g', 17)                                             \
                            .arg((expected), 0, 'g', 17)))

using Samples = std::vector<double>;

Session sessionWithRates(const std::vector<uint64_t>& host, const std::vector<uint64_t>& other,
                         SweepOrder order = SweepOrder::Interleaved) {
    return test::twoTargetRates(host, other, 1'000'000, order);
}

const ComparisonRow& natRow(const Comparison& comparison, const Session& session, Metric metric) {
    const ComparisonRow* row = comparison.find(session.targets[1].id, 1, metric);
    Q_ASSERT(row);
    return *row;
}

} // namespace

class TestPairedComparison : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pairedLogRatio_data();
    void pairedLogRatio();
    void welchIntervals();
    void driftCancelsOnlyWhenPaired();
    void zeroSpreadAndEqualSamples();
    void failuresAreComparedAsARate();
    void belowResolutionHasNoPercent();
    void quartilesAndOutliers_data();
    void quartilesAndOutliers();
    void outliersAreFlaggedNotDropped();
};

void TestPairedComparison::pairedLogRatio_data() {
    QTest::addColumn<Samples>("a");
    QTest::addColumn<Samples>("b");
    QTest::addColumn<double>("percent");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    QTest::newRow("4 pairs") << Samples{95, 102, 98, 105} << Samples{100, 104, 101, 108}
                             << -3.1744058081552673 << -5.235145031526556 << -1.0688541261129503;
    QTest::newRow("3 pairs, tight")
        << Samples{80, 81, 79} << Samples{100, 101, 99} << -20.001500178146504
        << -20.496852056999547 << -19.503061962585654;
    QTest::newRow("5 pairs, drifting")
        << Samples{900, 1000, 1100, 1200, 1300} << Samples{1000, 1105, 1215, 1330, 1440}
        << -9.692998848169655 << -9.963357444535948 << -9.421828429321389;
    QTest::newRow("fixture, c=10")
        << Samples{900, 950, 1000} << Samples{1000, 1100, 1200} << -13.477167633015341
        << -21.37141145692739 << -4.790348402293898;
}

void TestPairedComparison::pairedLogRatio() {
    QFETCH(Samples, a);
    QFETCH(Samples, b);
    QFETCH(double, percent);
    QFETCH(double, low);
    QFETCH(double, high);
    const auto ratio = logRatioInterval(a, b, ComparisonMethod::Paired);
    QVERIFY(ratio);
    QCOMPARE(ratio->method, ComparisonMethod::Paired);
    QCOMPARE_NEAR((ratio->ratio - 1) * 100, percent, 1e-9);
    QCOMPARE_NEAR((ratio->low - 1) * 100, low, 1e-7);
    QCOMPARE_NEAR((ratio->high - 1) * 100, high, 1e-7);
    QVERIFY(ratio->pValue < kSignificanceLevel);
    // Sizes that do not pair, or a figure that is not positive, have no ratio.
    QVERIFY(!logRatioInterval({1, 2, 3}, {1, 2}, ComparisonMethod::Paired));
    QVERIFY(!logRatioInterval({0, 2, 3}, {1, 2, 3}, ComparisonMethod::Paired));
}

void TestPairedComparison::welchIntervals() {
    const auto raw = welchDifference({90, 95, 100}, {100, 110, 120});
    QVERIFY(raw);
    QCOMPARE(raw->estimate, -15.0);
    QCOMPARE_NEAR(raw->dof, 2.941176470588236, 1e-12);
    QCOMPARE_NEAR(raw->low, -35.77699751591304, 1e-7);
    QCOMPARE_NEAR(raw->high, 5.776997515913038, 1e-7);
    QCOMPARE_NEAR(raw->pValue, 0.104478886684721866, 1e-10);

    const auto logs =
        logRatioInterval({900, 950, 1000}, {1000, 1100, 1200}, ComparisonMethod::Welch);
    QVERIFY(logs);
    QCOMPARE_NEAR((logs->ratio - 1) * 100, -13.477167633015396, 1e-9);
    QCOMPARE_NEAR((logs->low - 1) * 100, -28.22011405546795, 1e-7);
    QCOMPARE_NEAR((logs->high - 1) * 100, 4.293848092629804, 1e-7);
    // On the log scale the interval of a ratio never reaches -100%, however wide.
    const auto wide = logRatioInterval({1, 50, 2}, {100, 1, 60}, ComparisonMethod::Welch);
    QVERIFY(wide && wide->low > 0);
    QVERIFY(!welchDifference({1}, {1, 2}));
}

// The same four pairs: paired, the common drift cancels and the 3% fall is
// significant; set against each other as independent samples it is not.
void TestPairedComparison::driftCancelsOnlyWhenPaired() {
    const Session paired = sessionWithRates({100, 104, 101, 108}, {95, 102, 98, 105});
    const Comparison pairedComparison(paired);
    const ComparisonRow& row = natRow(pairedComparison, paired, Metric::RequestsPerSecond);
    QCOMPARE(row.method, std::optional(ComparisonMethod::Paired));
    QCOMPARE_NEAR(*row.vsBaselinePercent, -3.1744058081552673, 1e-9);
    QCOMPARE_NEAR(*row.vsBaselineLowPercent, -5.235145031526556, 1e-7);
    QCOMPARE(row.verdict, Verdict::Significant);

    const Session sequential =
        sessionWithRates({100, 104, 101, 108}, {95, 102, 98, 105}, SweepOrder::Sequential);
    const Comparison welch(sequential);
    const ComparisonRow& unpaired = natRow(welch, sequential, Metric::RequestsPerSecond);
    QCOMPARE(unpaired.method, std::optional(ComparisonMethod::Welch));
    QCOMPARE_NEAR(*unpaired.vsBaselinePercent, -3.174405808155245, 1e-9);
    QCOMPARE_NEAR(*unpaired.vsBaselineLowPercent, -9.666325143562904, 1e-7);
    QCOMPARE_NEAR(*unpaired.vsBaselineHighPercent, 3.7840617632720175, 1e-7);
    QCOMPARE(unpaired.verdict, Verdict::WithinNoise);

    // Unequal counts do not pair.
    const Session unequal = sessionWithRates({100, 104, 101, 108}, {95, 102, 98});
    const Comparison third(unequal);
    QCOMPARE(natRow(third, unequal, Metric::RequestsPerSecond).method,
             std::optional(ComparisonMethod::Welch));
    const QString report = comparisonReport(paired, pairedComparison);
    QVERIFY2(
        report.contains(QStringLiteral("container-nat: -3.2% [-5.2%, -1.1%] requests/s vs host "
                                       "(significant, paired)")),
        qPrintable(report));
}

void TestPairedComparison::zeroSpreadAndEqualSamples() {
    // Every run alike on both sides: no noise to judge by, never significant.
    const Session flat = sessionWithRates({100, 100, 100}, {90, 90, 90});
    const Comparison flatComparison(flat);
    const ComparisonRow& flatRow = natRow(flatComparison, flat, Metric::RequestsPerSecond);
    QCOMPARE(flatRow.verdict, Verdict::NotApplicable);
    QCOMPARE(flatRow.verdictNote, QStringLiteral("no spread on either side"));
    QCOMPARE_NEAR(*flatRow.vsBaselinePercent, -10.0, 1e-9);
    // Equal samples, in another order: within noise, even paired.
    const Session equal = sessionWithRates({100, 110, 120}, {120, 100, 110});
    const Comparison equalComparison(equal);
    QCOMPARE(natRow(equalComparison, equal, Metric::RequestsPerSecond).verdict,
             Verdict::WithinNoise);
    const Session same = sessionWithRates({100, 110, 120}, {100, 110, 120});
    const Comparison sameComparison(same);
    const ComparisonRow& sameRow = natRow(sameComparison, same, Metric::RequestsPerSecond);
    QCOMPARE(sameRow.verdict, Verdict::WithinNoise);
    QCOMPARE(*sameRow.vsBaselinePercent, 0.0);
    // Both sides scatter, every pair at exactly half: the drift cancelled.
    const Session half = sessionWithRates({990, 1000, 1010}, {495, 500, 505});
    const Comparison halfComparison(half);
    const ComparisonRow& halfRow = natRow(halfComparison, half, Metric::RequestsPerSecond);
    QCOMPARE(halfRow.verdict, Verdict::Significant);
    QCOMPARE_NEAR(*halfRow.vsBaselinePercent, -50.0, 1e-9);
}

void TestPairedComparison::failuresAreComparedAsARate() {
    // 10 failures in 1000 requests against 10 in 100: the same count, ten
    // times the rate.
    Session session = sessionWithRates({1000, 1000, 1000}, {100, 100, 100});
    for (PointResult& result : session.results) {
        const bool nat = result.targetId == session.targets[1].id;
        result.failed = 10 + uint64_t(result.repetition) * (nat ? 1 : 10);
        result.errors[size_t(engine::ErrorClass::Receive)] = result.failed;
    }
    const Comparison comparison(session);
    const ComparisonRow& failed = natRow(comparison, session, Metric::Failed);
    QCOMPARE(failed.samples, (Samples{10, 11, 12}));
    QVERIFY(*failed.vsBaselinePercent > 400);
    QCOMPARE(failed.verdict, Verdict::Significant);
    // No failures on either side: nothing to compare, never significant.
    const Session clean = sessionWithRates({100, 110, 120}, {90, 95, 100});
    const Comparison cleanComparison(clean);
    const ComparisonRow& none = natRow(cleanComparison, clean, Metric::Failed);
    QVERIFY(!none.vsBaselinePercent);
    QCOMPARE(none.verdict, Verdict::WithinNoise);
    QCOMPARE(*none.statistics.ci95Low, 0.0);
}

// "Connect time mean 0.000 ±0.000 +132.0 %": a change of figures below the
// histogram's 1 µs is not shown.
void TestPairedComparison::belowResolutionHasNoPercent() {
    Session session = sessionWithRates({100, 110, 120}, {90, 95, 100});
    const double connect[2][3] = {{0.0002, 0.0003, 0.0002}, {0.0005, 0.0004, 0.0006}};
    for (PointResult& result : session.results)
        result.connect.meanMs =
            connect[result.targetId == session.targets[1].id][size_t(result.repetition)];
    const Comparison comparison(session);
    const ComparisonRow& row = natRow(comparison, session, Metric::ConnectMean);
    QVERIFY(!row.vsBaselinePercent);
    QCOMPARE(row.verdict, Verdict::NotApplicable);
    QCOMPARE(row.verdictNote, QStringLiteral("below resolution"));
    QCOMPARE(metricResolution(Metric::ConnectMean), 0.001);
    QCOMPARE(metricResolution(Metric::Failed), 1.0);
    const QString report = comparisonReport(session, comparison);
    QVERIFY2(!report.contains(QStringLiteral("+132")) && !report.contains(QStringLiteral("+100.0")),
             qPrintable(report));
    // At the resolution and above, the change is shown.
    for (PointResult& result : session.results)
        result.connect.meanMs = *result.connect.meanMs * 10;
    const Comparison above(session);
    QVERIFY(natRow(above, session, Metric::ConnectMean).vsBaselinePercent);
}

void TestPairedComparison::quartilesAndOutliers_data() {
    QTest::addColumn<Samples>("samples");
    QTest::addColumn<double>("q1");
    QTest::addColumn<double>("q3");
    QTest::addColumn<std::vector<bool>>("flags");
    QTest::newRow("benchstat's example")
        << Samples{3, 3, 6, 9, 9, 12, 15, 15} << 4.25 << 13.75
        << std::vector<bool>{false, false, false, false, false, false, false, false};
    QTest::newRow("one slow run") << Samples{10, 11, 12, 13, 50} << 10.666666666666666
                                  << 25.33333333333332
                                  << std::vector<bool>{false, false, false, false, true};
    QTest::newRow("one stalled run")
        << Samples{100, 101, 99, 102, 98, 60} << 94.83333333333333 << 101.08333333333333
        << std::vector<bool>{false, false, false, false, false, true};
    QTest::newRow("three runs") << Samples{1, 2, 3} << 1.1666666666666667 << 2.8333333333333335
                                << std::vector<bool>{false, false, false};
}

void TestPairedComparison::quartilesAndOutliers() {
    QFETCH(Samples, samples);
    QFETCH(double, q1);
    QFETCH(double, q3);
    QFETCH(std::vector<bool>, flags);
    QCOMPARE_NEAR(quantileR8(samples, 0.25), q1, 1e-12);
    QCOMPARE_NEAR(quantileR8(samples, 0.75), q3, 1e-12);
    QCOMPARE(iqrOutliers(samples), flags);
}

void TestPairedComparison::outliersAreFlaggedNotDropped() {
    const Session session = sessionWithRates({100, 101, 99, 102, 98, 60}, {90, 91, 89, 92, 88, 90});
    const Comparison comparison(session);
    const ComparisonRow* host =
        comparison.find(session.targets[0].id, 1, Metric::RequestsPerSecond);
    QVERIFY(host);
    QCOMPARE(host->outlierCount, 1);
    QCOMPARE(host->outliers, (std::vector<bool>{false, false, false, false, false, true}));
    QCOMPARE(host->statistics.n, 6);
    QCOMPARE(host->statistics.mean, 560.0 / 6);
    const QString report = comparisonReport(session, comparison);
    // Transfer rate and time per request follow the same run: flagged too.
    QVERIFY2(report.contains(QRegularExpression(QStringLiteral("93\\.33 ±[0-9.]+!"))) &&
                 report.contains(QStringLiteral("runs' figures are outside [Q1 - 1.5 IQR")),
             qPrintable(report));
}

QTEST_GUILESS_MAIN(TestPairedComparison)
#include "tst_paired_comparison.moc"
