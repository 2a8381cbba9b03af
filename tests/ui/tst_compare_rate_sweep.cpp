// The Compare page for a rate sweep: one latency-against-throughput line per
// mode, a knee ring at the rate app::kneeIndex() names for the objective, knee
// bars and table rows that follow the objective and the percentile picked.
// The session is synthetic with knees known by construction.

#include "app/session/session_document.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/compare/rate_latency_chart.h"
#include "ui/compare/rate_sweep_view.h"

#include <QBarSet>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QTest>

using namespace loadscope;

namespace {

// p99 (ms) of "direct" and "proxy" at 1000, 2000, 4000, 8000 req/s: with an
// objective of 10 ms direct's knee is 4000 and proxy's 1000; with 1 ms
// neither has one; with 100 ms both pass every level.
constexpr double kRates[] = {1000, 2000, 4000, 8000};
constexpr double kDirectP99[] = {1, 2, 5, 30};
constexpr double kProxyP99[] = {3, 15, 40, 90};

app::Session rateSweepSession() {
    app::Session session;
    session.name = QStringLiteral("direct vs proxy, rate sweep");
    session.targets.push_back(
        test::httpTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 80, 0));
    session.targets.push_back(
        test::httpTarget(QStringLiteral("proxy"), app::DeploymentMode::UserlandProxy, 81, 1));
    session.plan.levelKind = app::SweepLevelKind::Rate;
    session.plan.rateLevels = {std::begin(kRates), std::end(kRates)};
    session.plan.repetitions = 1;
    for (size_t i = 0; i < std::size(kRates); ++i) {
        // The proxy falls behind at 8000: it achieves 5000.
        session.results.push_back(test::rateResult(session.targets[0].id, 10, kRates[i], 0,
                                                   kRates[i], kDirectP99[i] / 4, kDirectP99[i],
                                                   kDirectP99[i] * 2));
        session.results.push_back(test::rateResult(session.targets[1].id, 10, kRates[i], 0,
                                                   i == 3 ? 5000 : kRates[i], kProxyP99[i] / 4,
                                                   kProxyP99[i], kProxyP99[i] * 2));
    }
    return session;
}

} // namespace

class TestCompareRateSweep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void linesPerModeAgainstAchievedThroughput();
    void kneeMarkersAtTheKnownRates_data();
    void kneeMarkersAtTheKnownRates();
    void closedLoopSessionHidesTheRateView();
};

void TestCompareRateSweep::linesPerModeAgainstAchievedThroughput() {
    app::SessionDocument document;
    document.reset(rateSweepSession());
    ui::ComparePage page(&document);
    page.resize(1280, 800);
    QVERIFY(test::chartsCurrent(page));
    ui::RateSweepView* view = page.rateSweepView();
    QVERIFY(view->isVisibleTo(&page));
    ui::RateLatencyChart* chart = view->latencyChart();
    QCOMPARE(chart->lines().size(), 2);
    QCOMPARE(chart->lines()[0]->name(), QStringLiteral("direct"));
    QCOMPARE(chart->lines()[1]->name(), QStringLiteral("proxy"));
    // p99 by default: the proxy's last point sits at the 5000 req/s it achieved.
    const QList<QPointF> proxy = chart->lines()[1]->points();
    QCOMPARE(proxy.size(), 4);
    QCOMPARE(proxy[3], QPointF(5000, 90));
    QCOMPARE(chart->lines()[0]->points()[2], QPointF(4000, 5));
    // p50 picked: the same x, a quarter of the y.
    view->setPercentile(50);
    QCOMPARE(chart->lines()[0]->points()[2], QPointF(4000, 1.25));
    QVERIFY(chart->objectiveLine());
    QCOMPARE(chart->objectiveLine()->points().first().y(), view->objectiveMs());
}

void TestCompareRateSweep::kneeMarkersAtTheKnownRates_data() {
    QTest::addColumn<double>("objective");
    QTest::addColumn<double>("directKnee"); // 0: none
    QTest::addColumn<double>("proxyKnee");
    QTest::newRow("10 ms") << 10.0 << 4000.0 << 1000.0;
    QTest::newRow("1 ms: none under") << 1.0 << 0.0 << 0.0;
    QTest::newRow("100 ms: all under") << 100.0 << 8000.0 << 8000.0;
}

void TestCompareRateSweep::kneeMarkersAtTheKnownRates() {
    QFETCH(double, objective);
    QFETCH(double, directKnee);
    QFETCH(double, proxyKnee);
    app::SessionDocument document;
    document.reset(rateSweepSession());
    ui::ComparePage page(&document);
    QVERIFY(test::chartsCurrent(page));
    ui::RateSweepView* view = page.rateSweepView();
    view->setObjectiveMs(objective);

    const double knees[] = {directKnee, proxyKnee};
    const double* p99s[] = {kDirectP99, kProxyP99};
    const QList<QScatterSeries*> markers = view->latencyChart()->kneeMarkers();
    QCOMPARE(markers.size(), 2);
    const QList<QBarSet*> bars = view->kneeBars()->series()->barSets();
    QCOMPARE(bars.size(), 2);
    QTableWidget* table = view->kneeTable();
    QCOMPARE(table->rowCount(), 2);
    for (int mode = 0; mode < 2; ++mode) {
        const double knee = knees[mode];
        QCOMPARE(bars[mode]->at(mode), knee);
        if (knee == 0) {
            QCOMPARE(markers[mode]->count(), 0);
            QCOMPARE(table->item(mode, 1)->text(), QStringLiteral("none"));
            continue;
        }
        // The ring sits on the line's point of the knee rate, at the throughput
        // achieved there (the proxy's 8000 req/s offered gave 5000).
        const size_t level =
            size_t(std::find(std::begin(kRates), std::end(kRates), knee) - std::begin(kRates));
        QCOMPARE(markers[mode]->count(), 1);
        const double achieved = mode == 1 && knee == 8000 ? 5000 : knee;
        QCOMPARE(markers[mode]->at(0), QPointF(achieved, p99s[mode][level]));
        QCOMPARE(table->item(mode, 1)->text().remove(QLatin1Char(',')),
                 QString::number(knee, 'f', 0));
    }
}

void TestCompareRateSweep::closedLoopSessionHidesTheRateView() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    ui::ComparePage page(&document);
    QVERIFY(test::chartsCurrent(page));
    QVERIFY(!page.rateSweepView()->isVisibleTo(&page));
    QVERIFY(!page.rateSweepView()->hasCurves());
}

QTEST_MAIN(TestCompareRateSweep)
#include "tst_compare_rate_sweep.moc"
