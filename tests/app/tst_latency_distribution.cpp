// Latency distributions over repetitions: merged histograms give the
// percentiles of all requests of all repetitions (checked against values
// counted by hand), imported results fall back to what their tool printed,
// cancelled and other levels' results stay out.

#include "app/stats/latency_distribution.h"
#include "session_test_data.h"

#include <QTest>

using namespace loadscope;

namespace {

constexpr int64_t kMs = 1'000'000;

// Two repetitions of one target at c=10:
//   repetition 0: 90 requests at 1 ms, 10 at 10 ms
//   repetition 1: 90 requests at 2 ms, 10 at 20 ms
// All 200 sorted: 1 ms x90 (ranks 1-90), 2 ms x90 (91-180), 10 ms x10
// (181-190), 20 ms x10 (191-200). So p50 (rank 100) = 2 ms, p90 (rank 180)
// = 2 ms, p95 (rank 190) = 10 ms, p99 (rank 198) = 20 ms, max 20 ms.
// Either repetition alone would say p50 = 1 or 2 ms and p99 = 10 or 20 ms.
app::Session twoRepetitions() {
    app::Session session;
    session.targets.push_back(
        test::httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
    const QUuid id = session.targets[0].id;
    session.results.push_back(
        test::measuredResult(id, 10, 0, 100, 1.0, {{1 * kMs, 90}, {10 * kMs, 10}}));
    session.results.push_back(
        test::measuredResult(id, 10, 1, 100, 1.0, {{2 * kMs, 90}, {20 * kMs, 10}}));
    // Noise that must stay out: a cancelled repetition and another level.
    app::PointResult cancelled = test::measuredResult(id, 10, 2, 100, 1.0, {{500 * kMs, 100}});
    cancelled.cancelled = true;
    session.results.push_back(cancelled);
    session.results.push_back(test::measuredResult(id, 20, 0, 100, 1.0, {{700 * kMs, 100}}));
    return session;
}

// The latency of the first row at or above `percentile`.
double latencyAt(const app::LatencyDistribution& distribution, double percentile) {
    for (const app::LatencyPercentile& row : distribution.percentiles) {
        if (row.percentile >= percentile)
            return row.latencyMs;
    }
    return -1;
}

} // namespace

class TestLatencyDistribution : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mergedPercentilesAreThoseOfAllRequests_data() {
        QTest::addColumn<double>("percentile");
        QTest::addColumn<double>("expectedMs");
        QTest::newRow("p50") << 50.0 << 2.0;
        QTest::newRow("p90") << 90.0 << 2.0;
        QTest::newRow("p95") << 95.0 << 10.0;
        QTest::newRow("p99") << 99.0 << 20.0;
        QTest::newRow("p100") << 100.0 << 20.0;
    }
    void mergedPercentilesAreThoseOfAllRequests() {
        QFETCH(double, percentile);
        QFETCH(double, expectedMs);
        const app::Session session = twoRepetitions();
        const auto merged = app::mergedTotalHistogram(session, session.targets[0].id, 10);
        QVERIFY(merged);
        QCOMPARE(merged->results, 2);
        QCOMPARE(merged->histogram.count(), uint64_t(200));
        // The histogram keeps 3 significant digits: within 0.1%.
        const double ms = double(merged->histogram.valueAtPercentile(percentile)) / double(kMs);
        QVERIFY2(qAbs(ms - expectedMs) <= expectedMs * 1e-3, qPrintable(QString::number(ms)));

        const auto distribution = app::latencyDistribution(session, session.targets[0].id, 10);
        QVERIFY(distribution);
        QCOMPARE(distribution->source, app::LatencyDistribution::Source::Histograms);
        QCOMPARE(distribution->results, 2);
        const double plotted = latencyAt(*distribution, percentile);
        QVERIFY2(qAbs(plotted - expectedMs) <= expectedMs * 1e-3,
                 qPrintable(QString::number(plotted)));
    }

    void distributionRowsAscend() {
        const app::Session session = twoRepetitions();
        const auto distribution = app::latencyDistribution(session, session.targets[0].id, 10);
        QVERIFY(distribution);
        QVERIFY(distribution->percentiles.size() > 10);
        QCOMPARE(distribution->percentiles.front().percentile, 0.0);
        QVERIFY(qAbs(distribution->percentiles.front().latencyMs - 1.0) < 1e-3);
        QCOMPARE(distribution->percentiles.back().percentile, 100.0);
        for (size_t i = 1; i < distribution->percentiles.size(); ++i) {
            QVERIFY(distribution->percentiles[i].percentile >=
                    distribution->percentiles[i - 1].percentile);
            QVERIFY(distribution->percentiles[i].latencyMs >=
                    distribution->percentiles[i - 1].latencyMs);
        }
    }

    void oneLevelAtATime() {
        const app::Session session = twoRepetitions();
        const QUuid id = session.targets[0].id;
        const auto atTen = app::latencyDistributionsAt(session, 10);
        QCOMPARE(atTen.size(), size_t(1));
        QCOMPARE(atTen.at(id).results, 2);
        QVERIFY(qAbs(latencyAt(atTen.at(id), 99) - 20.0) < 0.02);
        const auto atTwenty = app::latencyDistributionsAt(session, 20);
        QVERIFY(qAbs(latencyAt(atTwenty.at(id), 50) - 700.0) < 0.7);
        QVERIFY(app::latencyDistributionsAt(session, 30).empty());

        const auto all = app::mergedTotalHistograms(session);
        QCOMPARE(all.size(), size_t(2));
        QCOMPARE(all.at({id, 10}).histogram.count(), uint64_t(200));
        QCOMPARE(all.at({id, 20}).histogram.count(), uint64_t(100));
    }

    void importedResultsUseTheirPrintedPercentiles() {
        app::Session session;
        session.targets.push_back(
            test::httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
        const QUuid id = session.targets[0].id;
        // Repetition 1 imported first: repetition 0 still stands for the level.
        session.results.push_back(test::importedResult(id, 100, 1, 9000, 8.0));
        session.results.push_back(test::importedResult(id, 100, 0, 9000, 4.5));
        const auto distribution = app::latencyDistribution(session, id, 100);
        QVERIFY(distribution);
        QCOMPARE(distribution->source, app::LatencyDistribution::Source::PrintedPercentiles);
        QCOMPARE(distribution->results, 1);
        std::vector<app::LatencyPercentile> expected;
        for (const auto& [percentile, ms] : session.results[1].total.percentilesMs)
            expected.push_back({percentile, ms});
        QCOMPARE(distribution->percentiles, expected);
        QCOMPARE(latencyAt(*distribution, 99), 4.5); // repetition 0's, not 1's 8 ms
        QVERIFY(!app::mergedTotalHistogram(session, id, 100));

        // A measured repetition at the same level wins: histograms merge, printed figures do not.
        session.results.push_back(test::measuredResult(id, 100, 2, 100, 1.0, {{3 * kMs, 100}}));
        const auto mixed = app::latencyDistributionsAt(session, 100);
        QCOMPARE(mixed.at(id).source, app::LatencyDistribution::Source::Histograms);
    }

    void nothingToDrawIsNothing() {
        app::Session session = twoRepetitions();
        QVERIFY(!app::latencyDistribution(session, session.targets[0].id, 1));
        QVERIFY(!app::latencyDistribution(session, QUuid::createUuid(), 10));
    }
};

QTEST_GUILESS_MAIN(TestLatencyDistribution)
#include "tst_latency_distribution.moc"
