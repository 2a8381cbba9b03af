// The Compare page for a capacity plan: a bar per mode at the mean of its
// searches' answers with their 95 % interval and the paired change against
// the baseline, each search's steps on the latency–rate chart with its answer
// ringed and the objective dashed, and a table of modes and searches. The
// session is synthetic: each search met at a known rate and missed 4 % above.

#include "app/session/session_document.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/compare/capacity_view.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/rate_latency_chart.h"
#include "ui/compare/rate_sweep_view.h"

#include <QBarSet>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QTest>

using namespace loadscope;

namespace {

constexpr double kHost[] = {1000, 1100, 1050};
constexpr double kNat[] = {800, 869, 851}; // 0.80, 0.79, 0.81 of host's

app::PointResult step(const app::Target& target, int repetition, int number, double rate,
                      double p99Ms) {
    app::PointResult result;
    result.targetId = target.id;
    result.concurrency = 50;
    result.repetition = repetition;
    result.source.tool = QStringLiteral("loadscope");
    result.loadModel = app::LoadModel::FixedRate;
    result.offeredRate = rate;
    result.capacityStep = number;
    result.durationSeconds = 2;
    result.complete = uint64_t(rate * 2);
    result.total.percentilesMs[99] = p99Ms;
    result.uncorrected.meanMs = 1;
    return result;
}

app::Session capacitySession() {
    app::Session session;
    session.name = QStringLiteral("host vs nat, capacity");
    session.targets.push_back(
        test::httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
    session.targets.push_back(
        test::httpTarget(QStringLiteral("nat"), app::DeploymentMode::ContainerNat, 81, 1));
    session.plan.levelKind = app::SweepLevelKind::Capacity;
    session.plan.rateConnections = 50;
    session.plan.repetitions = 3;
    session.plan.capacity.objective.boundMs = 5;
    for (int repetition = 0; repetition < 3; ++repetition) {
        for (size_t t = 0; t < 2; ++t) {
            const double capacity = (t == 0 ? kHost : kNat)[repetition];
            session.results.push_back(step(session.targets[t], repetition, 1, capacity * 1.04, 40));
            session.results.push_back(step(session.targets[t], repetition, 2, capacity, 2));
        }
    }
    return session;
}

} // namespace

class TestCompareCapacity : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void capacityBarsWithTheirIntervalAndChange() {
        app::SessionDocument document;
        document.reset(capacitySession());
        const auto page = test::pageFor(document);
        ui::CapacityView* view = page->capacityView();
        QVERIFY(view->isVisibleTo(page.get()));
        // No closed loop, no rate sweep: their charts stay away.
        QVERIFY(!page->rateSweepView()->isVisibleTo(page.get()));
        QVERIFY(!page->chartPanels().first()->isVisibleTo(page.get()));

        const ui::ModeBarChartData& bars = view->capacityBars()->data();
        QCOMPARE(bars.title, QStringLiteral("Capacity at p99 ≤ 5 ms"));
        QCOMPARE(bars.bars.size(), size_t(2));
        QCOMPARE(bars.bars[0].name, QStringLiteral("host"));
        QCOMPARE(bars.bars[0].mean, 1050.0);
        QCOMPARE(bars.bars[0].repetitions, 3);
        QVERIFY(bars.bars[0].ciLow && *bars.bars[0].ciLow < 1000);
        QVERIFY(bars.bars[0].ciHigh && *bars.bars[0].ciHigh > 1100);
        QCOMPARE(bars.bars[0].note, QStringLiteral("baseline"));
        QCOMPARE(bars.bars[1].mean, (800.0 + 869 + 851) / 3);
        QVERIFY2(bars.bars[1].note.startsWith(QStringLiteral("−20.0% vs host")),
                 qPrintable(bars.bars[1].note));
        QCOMPARE(bars.bars[1].noteStyle, ui::ChartAnnotations::LabelStyle::Emphasis);
        // What is drawn: one set per mode, at its mean.
        QCOMPARE(view->capacityBars()->series()->barSets().size(), 2);
        QCOMPARE(view->capacityBars()->series()->barSets()[1]->at(1), bars.bars[1].mean);

        // The table: the modes, then each search's answer.
        QTableWidget* table = view->table();
        QCOMPARE(table->rowCount(), 2 + 6);
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("1050"));
        QVERIFY(table->item(1, 3)->text().startsWith(QStringLiteral("-20.0% [")));
        QCOMPARE(table->item(1, 4)->text(), QStringLiteral("significant"));
        QCOMPARE(table->item(2, 0)->text(), QStringLiteral("host, search 1"));
        QCOMPARE(table->item(2, 1)->text(), QStringLiteral("1000"));
    }

    void eachSearchsStepsOnTheLatencyRateChart() {
        app::SessionDocument document;
        document.reset(capacitySession());
        const auto page = test::pageFor(document);
        ui::RateLatencyChart* chart = page->capacityView()->stepsChart();
        // One line per search, in its mode's colour, steps by rate.
        QCOMPARE(chart->lines().size(), 6);
        QCOMPARE(chart->lines()[0]->pen().color(), chart->lines()[2]->pen().color());
        QVERIFY(chart->lines()[0]->pen().color() != chart->lines()[3]->pen().color());
        const QList<QPointF> first = chart->lines()[0]->points();
        QCOMPARE(first.size(), 2);
        QCOMPARE(first[0], QPointF(1000, 2));
        QCOMPARE(first[1], QPointF(1040, 40));
        // Its answer ringed.
        QCOMPARE(chart->kneeMarkers()[0]->points(), QList<QPointF>{QPointF(1000, 2)});
        QCOMPARE(chart->kneeMarkers()[4]->points(), QList<QPointF>{QPointF(869, 2)});
        // The objective dashed across; the legend names each mode once.
        QVERIFY(chart->objectiveLine());
        QCOMPARE(chart->objectiveLine()->points().first().y(), 5.0);
        QCOMPARE(chart->objectiveLine()->name(), QStringLiteral("objective p99 ≤ 5 ms"));
        int named = 0;
        for (QLineSeries* line : chart->lines())
            for (QLegendMarker* marker : chart->legend()->markers(line))
                named += marker->isVisible() ? 1 : 0;
        QCOMPARE(named, 2);
    }

    void aModeNoRateMeetsSaysSo() {
        app::Session session = capacitySession();
        // nat's every search missed at both its steps, 8 ms at the lower.
        for (app::PointResult& result : session.results)
            if (result.targetId == session.targets[1].id)
                result.total.percentilesMs[99] = result.capacityStep == 2 ? 8 : 8.5;
        for (app::PointResult& result : session.results)
            if (result.targetId == session.targets[1].id && result.capacityStep == 2)
                result.offeredRate = *result.offeredRate / 4;
        app::SessionDocument document;
        document.reset(session);
        const auto page = test::pageFor(document);
        const ui::ModeBarChartData& bars = page->capacityView()->capacityBars()->data();
        QCOMPARE(bars.bars[1].mean, 0.0);
        QCOMPARE(bars.bars[1].note, QStringLiteral("no rate\nmeets it"));
        QVERIFY(page->capacityView()->table()->item(5, 5)->text().startsWith(
            QStringLiteral("no rate meets it: at ")));
    }

    void otherPlansHideTheCapacityView() {
        app::Session session = capacitySession();
        session.plan.levelKind = app::SweepLevelKind::Concurrency;
        app::SessionDocument document;
        document.reset(session);
        const auto page = test::pageFor(document);
        QVERIFY(!page->capacityView()->isVisibleTo(page.get()));
    }
};

QTEST_MAIN(TestCompareCapacity)
#include "tst_compare_capacity.moc"
