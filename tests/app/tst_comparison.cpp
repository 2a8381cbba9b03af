// Statistics and the comparison table, checked against values computed by
// hand (reference values from the t distribution evaluated independently to
// 30 digits).
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "session_test_data.h"

#include <QTest>
#include <cmath>
#include <set>

using namespace loadscope;
using namespace loadscope::app;

namespace {

bool near(double actual, double expected, double tolerance) {
    return std::fabs(actual - expected) <= tolerance;
}

#define QCOMPARE_NEAR(actual, expected, tolerance)                                                 \
    QVERIFY2(near((actual), (expected), (tolerance)),                                              \
             qPrintable(QStringLiteral("%1 is %2, expected %3")                                    \
                            .arg(QStringLiteral(#actual))                                          \
                            .arg((actual), 0, 'g', 17)                                             \
                            .arg((expected), 0, 'g', 17)))

Session sessionWithRates(const std::vector<uint64_t>& host, const std::vector<uint64_t>& other) {
    return test::twoTargetRates(host, other, 2'000'000);
}

} // namespace

class TestComparison : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tQuantile_data();
    void tQuantile();
    void tCdf();
    void sampleStatisticsByHand();
    void welchByHand();
    void welchEdges();
    void comparisonWithinNoise();
    void comparisonSignificant();
    void importedSingleResult();
    void verdictNeedsTwoRunsAndSpread();
    void rowsFollowProtocolAndData();
    void failuresNeverLookFast();
    void metricRegistry();
    void reportText();
};

void TestComparison::tQuantile_data() {
    QTest::addColumn<double>("dof");
    QTest::addColumn<double>("expected");
    QTest::newRow("1") << 1.0 << 12.7062047361747046;
    QTest::newRow("2") << 2.0 << 4.30265272974946385;
    QTest::newRow("3") << 3.0 << 3.18244630528370959;
    QTest::newRow("4") << 4.0 << 2.77644510519779436;
    QTest::newRow("9") << 9.0 << 2.26215716279820554;
    QTest::newRow("29") << 29.0 << 2.04522964213270430;
}

void TestComparison::tQuantile() {
    QFETCH(double, dof);
    QFETCH(double, expected);
    QCOMPARE_NEAR(studentTQuantile(0.975, dof), expected, 1e-9);
    QCOMPARE_NEAR(studentTQuantile(0.025, dof), -expected, 1e-9);
}

void TestComparison::tCdf() {
    QCOMPARE(studentTCdf(0, 3), 0.5);
    QCOMPARE_NEAR(studentTCdf(1.5, 2.5), 0.876081773456851869, 1e-12);
    QCOMPARE_NEAR(studentTCdf(-3, 7), 0.00997106306599626896, 1e-14);
    QCOMPARE_NEAR(studentTCdf(2, 5) + studentTCdf(-2, 5), 1.0, 1e-15);
}

void TestComparison::sampleStatisticsByHand() {
    // mean 110; sd sqrt((100 + 0 + 100) / 2) = 10; half width t(0.975, 2) x 10 / sqrt(3).
    const SampleStatistics s = sampleStatistics({100, 110, 120});
    QCOMPARE(s.n, 3);
    QCOMPARE(s.mean, 110.0);
    QCOMPARE_NEAR(*s.sd, 10.0, 1e-12);
    QCOMPARE_NEAR(*s.ci95Low, 110.0 - 24.8413771175033107, 1e-9);
    QCOMPARE_NEAR(*s.ci95High, 110.0 + 24.8413771175033107, 1e-9);

    const SampleStatistics single = sampleStatistics({42});
    QCOMPARE(single.n, 1);
    QCOMPARE(single.mean, 42.0);
    QVERIFY(!single.sd && !single.ci95Low && !single.ci95High);
    QCOMPARE(sampleStatistics({}).n, 0);
}

void TestComparison::welchByHand() {
    // Variances of the means 25/3 and 100/3; t = -15 / sqrt(125/3);
    // dof = (125/3)^2 / ((25/3)^2/2 + (100/3)^2/2) = 50/17.
    const auto test = welchDifference({90, 95, 100}, {100, 110, 120});
    QVERIFY(test);
    QCOMPARE(test->estimate, -15.0);
    QCOMPARE_NEAR(test->dof, 50.0 / 17.0, 1e-12);
    QCOMPARE_NEAR(test->pValue, 0.104478886684721866, 1e-10);

    const auto clear = welchDifference({80, 81, 79}, {100, 101, 99});
    QVERIFY(clear);
    QCOMPARE_NEAR(clear->dof, 4.0, 1e-12);
    QCOMPARE_NEAR(clear->pValue, 1.64830889871812513e-05, 1e-12);
}

void TestComparison::welchEdges() {
    QVERIFY(!welchDifference({1}, {1, 2, 3}));
    QVERIFY(!welchDifference({1, 2}, {}));
    // No spread on either side: the interval is the difference alone, and
    // it is flagged rather than given p = 0.
    QCOMPARE(welchDifference({5, 5, 5}, {5, 5})->pValue, 1.0);
    const auto flat = welchDifference({5, 5, 5}, {6, 6});
    QVERIFY(flat->noSpread);
    QCOMPARE(flat->pValue, 1.0);
    QCOMPARE(flat->low, -1.0);
}

void TestComparison::comparisonWithinNoise() {
    const Session session = test::twoTargetSession();
    const Comparison comparison(session);
    const QUuid host = session.targets[0].id;
    const QUuid nat = session.targets[1].id;
    QCOMPARE(comparison.concurrencyLevels(), (std::vector<int>{1, 10}));
    QCOMPARE(comparison.targetIds(), (std::vector<QUuid>{host, nat}));
    QCOMPARE(comparison.baselineTargetId(), host);

    const ComparisonRow* base = comparison.find(host, 10, Metric::RequestsPerSecond);
    QVERIFY(base);
    QCOMPARE(base->samples, (std::vector<double>{1000, 1100, 1200}));
    QCOMPARE(base->statistics.mean, 1100.0);
    QCOMPARE_NEAR(*base->statistics.sd, 100.0, 1e-9);
    QCOMPARE(base->verdict, Verdict::Baseline);
    QVERIFY(!base->vsBaselinePercent);

    const ComparisonRow* row = comparison.find(nat, 10, Metric::RequestsPerSecond);
    QVERIFY(row);
    QCOMPARE(row->statistics.mean, 950.0);
    // Interleaved: paired by repetition. The geometric mean of the ratios
    // 0.9, 0.8636, 0.8333, and its interval (python3, see tst_paired_comparison).
    QCOMPARE(row->method, std::optional(ComparisonMethod::Paired));
    QCOMPARE_NEAR(*row->vsBaselinePercent, -13.477167633015341, 1e-9);
    QCOMPARE_NEAR(*row->vsBaselineLowPercent, -21.37141145692739, 1e-7);
    QCOMPARE_NEAR(*row->vsBaselineHighPercent, -4.790348402293898, 1e-7);
    QCOMPARE(row->verdict, Verdict::Significant);
    QCOMPARE_NEAR(*row->statistics.ci95Low, 950.0 - 4.30265272974946385 * 50.0 / std::sqrt(3.0),
                  1e-8);

    // Latency mean per repetition: (50 x 0.25 + 45 x (1 + 0.1 r) + 5 x 9) / 100 ms.
    const ComparisonRow* latency = comparison.find(host, 1, Metric::LatencyMean);
    QVERIFY(latency);
    QCOMPARE_NEAR(latency->statistics.mean, 1.07, 1e-9);
    QCOMPARE_NEAR(*latency->statistics.sd, 0.045, 1e-9);
    // Time per request = concurrency x time / complete: 10 x 1 s / 1000..1200.
    QCOMPARE_NEAR(comparison.find(host, 10, Metric::TimePerRequest)->statistics.mean,
                  (10.0 + 10000.0 / 1100.0 + 10000.0 / 1200.0) / 3.0, 1e-9);
    QCOMPARE(comparison.find(nat, 10, Metric::Failed)->statistics.mean, 0.0);
    QCOMPARE(comparison.find(nat, 10, Metric::Failed)->verdict, Verdict::WithinNoise);

    // The same results in sequential order are independent samples: Welch
    // on the log figures (python3 reference), within noise.
    Session sequential = session;
    sequential.plan.order = SweepOrder::Sequential;
    const Comparison sequentialComparison(sequential);
    const ComparisonRow* welch = sequentialComparison.find(nat, 10, Metric::RequestsPerSecond);
    QCOMPARE(welch->method, std::optional(ComparisonMethod::Welch));
    QCOMPARE_NEAR(*welch->vsBaselineLowPercent, -28.22011405546795, 1e-7);
    QCOMPARE(welch->verdict, Verdict::WithinNoise);
}

void TestComparison::comparisonSignificant() {
    const Session session = sessionWithRates({100, 101, 99}, {80, 81, 79});
    const Comparison comparison(session);
    const ComparisonRow* row = comparison.find(session.targets[1].id, 1, Metric::RequestsPerSecond);
    QVERIFY(row);
    QCOMPARE_NEAR(*row->vsBaselinePercent, -20.001500178146504, 1e-9);
    QCOMPARE(row->verdict, Verdict::Significant);

    // Latency is recorded without spread: 2 ms against 1 ms every time. No
    // noise to set the difference against: never called significant.
    const ComparisonRow* p99 = comparison.find(session.targets[1].id, 1, Metric::LatencyP99);
    QVERIFY(p99);
    QCOMPARE(p99->verdict, Verdict::NotApplicable);
    QCOMPARE(p99->verdictNote, QStringLiteral("no spread on either side"));
    QCOMPARE_NEAR(*p99->vsBaselinePercent, 100.0, 0.2);
}

// The README's rule: equal figures on both sides are within noise only with two or
// more runs each; a single run on either side has no verdict, even when the two
// are equal; sides flat at different figures have none either.
void TestComparison::verdictNeedsTwoRunsAndSpread() {
    const auto rps = [](const Session& session) {
        const Comparison comparison(session);
        const ComparisonRow* row =
            comparison.find(session.targets[1].id, 1, Metric::RequestsPerSecond);
        return row ? std::pair{row->verdict, row->verdictNote}
                   : std::pair{Verdict::NotApplicable, QStringLiteral("no row")};
    };
    QCOMPARE(
        rps(sessionWithRates({100}, {100})),
        (std::pair{Verdict::NotApplicable, QStringLiteral("needs 2 or more runs on both sides")}));
    QCOMPARE(
        rps(sessionWithRates({100, 110}, {100})),
        (std::pair{Verdict::NotApplicable, QStringLiteral("needs 2 or more runs on both sides")}));
    QCOMPARE(rps(sessionWithRates({100, 100}, {100, 100})),
             (std::pair{Verdict::WithinNoise, QString()}));
    QCOMPARE(rps(sessionWithRates({100, 100}, {80, 80})),
             (std::pair{Verdict::NotApplicable, QStringLiteral("no spread on either side")}));
}

void TestComparison::importedSingleResult() {
    Session session = sessionWithRates({100, 110, 120}, {});
    Target imported =
        test::httpTarget(QStringLiteral("ab on NAT"), DeploymentMode::ContainerNat, 8080, 2);
    session.targets.push_back(imported);
    session.results.push_back(test::importedResult(imported.id, 1, 0, 88.0, 2.5));
    const Comparison comparison(session);

    const ComparisonRow* row = comparison.find(imported.id, 1, Metric::RequestsPerSecond);
    QVERIFY(row);
    QCOMPARE(row->statistics.n, 1);
    QCOMPARE(row->statistics.mean, 88.0);
    QVERIFY(!row->statistics.sd && !row->statistics.ci95Low);
    QCOMPARE_NEAR(*row->vsBaselinePercent, -20.0, 1e-12);
    QVERIFY(!row->pValue);
    QCOMPARE(row->verdict, Verdict::NotApplicable);
    QCOMPARE(verdictId(row->verdict), QStringLiteral("n/a"));
    QVERIFY(row->imported);
    QCOMPARE(comparison.find(imported.id, 1, Metric::LatencyP99)->statistics.mean, 2.5);
    QCOMPARE(comparison.find(imported.id, 1, Metric::TransferRate)->statistics.mean, 1234.5);
    // The report printed no p90: no row rather than a made-up figure.
    QVERIFY(!comparison.find(imported.id, 1, Metric::LatencyP90));
    QVERIFY(!comparison.find(session.targets[1].id, 1, Metric::RequestsPerSecond));
}

void TestComparison::rowsFollowProtocolAndData() {
    Session session = test::twoTargetSession();
    Target stream = makeTarget(QStringLiteral("stream"), DeploymentMode::Host, 2);
    stream.protocol = TargetProtocol::TcpStream;
    stream.address = QStringLiteral("127.0.0.1:18084");
    session.targets.push_back(stream);
    PointResult sent = test::measuredResult(stream.id, 1, 0, 0, 2.0, {});
    sent.bytesTotal = 0;
    sent.bytesSent = 2'500'000'000;
    session.results.push_back(sent);
    // A cancelled point counts for nothing.
    PointResult cancelled = test::measuredResult(session.targets[0].id, 1, 3, 999999, 1.0, {});
    cancelled.cancelled = true;
    session.results.push_back(cancelled);

    const Comparison comparison(session);
    std::set<Metric> streamMetrics;
    for (const ComparisonRow* row : comparison.rowsFor(stream.id, 1))
        streamMetrics.insert(row->metric);
    QCOMPARE(streamMetrics, (std::set<Metric>{Metric::Throughput, Metric::Failed}));
    QCOMPARE(comparison.find(stream.id, 1, Metric::Throughput)->statistics.mean,
             2'500'000'000 * 8 / 1e6 / 2.0);
    QCOMPARE(comparison.find(session.targets[0].id, 1, Metric::RequestsPerSecond)->statistics.n, 3);
    QVERIFY(!comparison.find(session.targets[0].id, 1, Metric::Throughput));

    // Rows come ordered by level, then target, then metric.
    const auto& rows = comparison.rows();
    for (size_t i = 1; i < rows.size(); ++i)
        QVERIFY(rows[i - 1].concurrency <= rows[i].concurrency);
    QVERIFY(Comparison(Session()).isEmpty());
}

// A target that refuses every connection fails fast: 50 000 failed connects
// in a second against 100 slow answers. It ranks below the slow one, and its
// failures are a rate next to the count.
void TestComparison::failuresNeverLookFast() {
    Session session = sessionWithRates({100, 100, 100}, {});
    const QUuid slow = session.targets[0].id;
    const QUuid refusing = session.targets[1].id;
    for (int repetition = 0; repetition < 3; ++repetition) {
        PointResult r = test::measuredResult(refusing, 1, repetition, 50'000, 1.0, {});
        r.failed = 50'000;
        r.errors[size_t(engine::ErrorClass::Connect)] = 50'000;
        r.bytesTotal = r.bytesBody = r.keepAlive = 0;
        r.statusCodes.clear();
        session.results.push_back(r);
    }
    // Half of the slow target's requests time out: it answered 50 a second.
    PointResult half = test::measuredResult(slow, 1, 3, 100, 1.0, {{1'000'000, 50}});
    half.failed = 50;
    half.errors[size_t(engine::ErrorClass::Timeout)] = 50;
    session.results.push_back(half);
    const Comparison comparison(session);
    const ComparisonRow* slowRate = comparison.find(slow, 1, Metric::RequestsPerSecond);
    const ComparisonRow* refusingRate = comparison.find(refusing, 1, Metric::RequestsPerSecond);
    QVERIFY(slowRate && refusingRate);
    QCOMPARE(slowRate->samples, (std::vector<double>{100, 100, 100, 50}));
    QCOMPARE(refusingRate->statistics.mean, 0.0);
    QVERIFY(refusingRate->statistics.mean < slowRate->statistics.mean);
    QCOMPARE_NEAR(*refusingRate->vsBaselinePercent, -100.0, 1e-12);
    const ComparisonRow* share = comparison.find(refusing, 1, Metric::FailedShare);
    QVERIFY(share);
    QCOMPARE(share->statistics.mean, 100.0);
    QCOMPARE(comparison.find(slow, 1, Metric::FailedShare)->samples,
             (std::vector<double>{0, 0, 0, 50}));
    QVERIFY(!metricInfo(Metric::FailedShare).higherIsBetter);
    // Time per request is over the successful ones: none for the refusing target.
    QVERIFY(!comparison.find(refusing, 1, Metric::TimePerRequest));
    QCOMPARE_NEAR(comparison.find(slow, 1, Metric::TimePerRequest)->samples.back(), 20.0, 1e-12);
}

void TestComparison::metricRegistry() {
    std::set<QString> ids;
    for (const MetricInfo& info : app::metricRegistry()) {
        QVERIFY(ids.insert(info.id).second);
        QCOMPARE(metricFromId(info.id), std::optional(info.metric));
        QCOMPARE(metricInfo(info.metric).id, info.id);
        QVERIFY(!info.label.isEmpty() && !info.unit.isEmpty() && !info.definition.isEmpty());
    }
    QCOMPARE(metricLabel(Metric::RequestsPerSecond, TargetProtocol::Memcache),
             QStringLiteral("Ops/s"));
    QCOMPARE(metricLabel(Metric::RequestsPerSecond, TargetProtocol::TcpRr),
             QStringLiteral("Transactions/s"));
    QVERIFY(!metricInfo(Metric::LatencyP99).higherIsBetter);
    QVERIFY(metricInfo(Metric::TransferRate).higherIsBetter);
    QCOMPARE(primaryMetric(TargetProtocol::TcpStream), Metric::Throughput);
}

void TestComparison::reportText() {
    const Session noisy = test::twoTargetSession();
    const QString report = comparisonReport(noisy, Comparison(noisy));
    QVERIFY2(report.contains(QStringLiteral(
                 "container-nat: -13.5% [-21.4%, -4.8%] requests/s vs host (significant, paired)")),
             qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("Concurrency 10 (3 runs)")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("1100 ±248")),
             qPrintable(report)); // 4.3027 x 100 / sqrt 3
    QVERIFY2(report.contains(QStringLiteral("planned points done: 12 of 12")), qPrintable(report));

    const Session clear = sessionWithRates({100, 101, 99}, {80, 81, 79});
    const QString clearReport = comparisonReport(clear, Comparison(clear));
    QVERIFY2(clearReport.contains(QStringLiteral("container-nat: -20.0% [-20.5%, -19.5%] "
                                                 "requests/s vs host (significant, paired)")),
             qPrintable(clearReport));
    QVERIFY2(clearReport.contains(QStringLiteral("container-nat: +100.")), qPrintable(clearReport));

    Session imported = sessionWithRates({100, 110, 120}, {});
    imported.results.push_back(test::importedResult(imported.targets[1].id, 1, 0, 88.0, 2.5));
    const QString importedReport = comparisonReport(imported, Comparison(imported));
    QVERIFY2(
        importedReport.contains(QStringLiteral("container-nat: -20.0% requests/s vs host (n/a")),
        qPrintable(importedReport));
    QVERIFY2(importedReport.contains(QStringLiteral("88.0*")), qPrintable(importedReport));

    // HTTP/2 targets with 10 streams on each connection: the level is named
    // connections, with the streams, as in the window (level_naming.h).
    Session streams = test::twoTargetSession();
    for (Target& target : streams.targets) {
        target.http.http2 = true;
        target.http.maxConcurrentStreams = 10;
    }
    const QString streamsReport = comparisonReport(streams, Comparison(streams));
    QVERIFY2(streamsReport.contains(QStringLiteral("10 connections × 10 streams (3 runs)")),
             qPrintable(streamsReport));
    QVERIFY2(!streamsReport.contains(QStringLiteral("Concurrency 10")), qPrintable(streamsReport));

    QCOMPARE(comparisonReport(Session(), Comparison()).contains(QStringLiteral("No results")),
             true);
    QCOMPARE(formatPercent(-17.26), QStringLiteral("-17.3%"));
    QCOMPARE(formatPercent(2.0), QStringLiteral("+2.0%"));
    QCOMPARE(formatFigure(25310.4), QStringLiteral("25310"));
    QCOMPARE(formatFigure(1.23456), QStringLiteral("1.235"));
}

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
