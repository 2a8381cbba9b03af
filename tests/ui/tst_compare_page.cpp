// The Compare page's charts: they show the comparison table (series per
// target, bar values equal to the table's means, "% vs baseline" labels),
// latency on the HDR scale and a tiny sweep's figures. The controls and the
// table are tst_compare_page_controls'.

#include "app/session/comparison.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/common/chart_annotations.h"
#include "ui/common/chart_style.h"
#include "ui/compare/compare_chart_data.h"
#include "ui/compare/comparison_table_model.h"
#include "ui/compare/path_breakdown_chart.h"
#include "ui_test_servers.h"

#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QTableView>
#include <QTest>
#include <memory>
#include <optional>

using namespace loadscope;
using test::pageFor;
using ui::ChartAnnotations;
using ui::ModeBarChart;
using ui::ModeLineChart;

namespace {

const char* const kBarCharts[] = {"primaryBars", "transferBars", "timeBars"};

const app::Metric kBarMetrics[] = {app::Metric::RequestsPerSecond, app::Metric::TransferRate,
                                   app::Metric::TimePerRequest};

// host at 1000 req/s and a mode at half of that, tight enough that Welch's
// test calls the difference significant.
app::Session significantSession() {
    app::Session session;
    session.name = QStringLiteral("host vs bridge");
    session.targets.push_back(
        test::httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
    session.targets.push_back(
        test::httpTarget(QStringLiteral("bridge"), app::DeploymentMode::LinuxBridge, 81, 1));
    session.baselineTargetId = session.targets[0].id;
    session.plan.concurrencyLevels = {8};
    const uint64_t host[] = {990, 1000, 1010};
    const uint64_t bridge[] = {495, 500, 505};
    for (int r = 0; r < 3; ++r) {
        session.results.push_back(test::measuredResult(session.targets[0].id, 8, r, host[size_t(r)],
                                                       1.0, {{500'000, 100}}));
        session.results.push_back(test::measuredResult(session.targets[1].id, 8, r,
                                                       bridge[size_t(r)], 1.0, {{900'000, 100}}));
    }
    return session;
}

// host and NAT at c=8, three repetitions of 1000 requests, each profiled:
// a sample is 1000 us of CPU, so each path's µs per request is its samples.
// host: TCP/IP 100, server user 200; NAT: TCP/IP 110, 120, 130, conntrack 20,
// server user 200; other load (never a path) 500 in both.
app::Session profiledSession() {
    app::Session session = significantSession();
    session.targets[1].name = QStringLiteral("nat");
    session.targets[1].mode = app::DeploymentMode::ContainerNat;
    using engine::CpuPath;
    using engine::ProcessRole;
    for (app::PointResult& r : session.results) {
        r.complete = 1000;
        app::CpuProfileSummary p;
        p.cpus = 2;
        p.periodUs = 1000;
        p.samples = 2000;
        const auto at = [&p](ProcessRole role, CpuPath path) -> uint64_t& {
            return p.counts[size_t(role)][size_t(path)];
        };
        const bool nat = r.targetId == session.targets[1].id;
        at(ProcessRole::Client, CpuPath::TcpIp) = nat ? 110 + 10 * uint64_t(r.repetition) : 100;
        at(ProcessRole::Client, CpuPath::Conntrack) = nat ? 20 : 0;
        at(ProcessRole::Server, CpuPath::User) = 200;
        at(ProcessRole::Other, CpuPath::User) = 500;
        r.profile = p;
    }
    return session;
}

// The values of a breakdown chart's segment named `label`, one per bar.
QList<qreal> segmentValues(const ui::PathBreakdownChart& chart, const char* label) {
    for (QBarSet* set : chart.series()->barSets())
        if (set->label() == QLatin1String(label)) {
            QList<qreal> values;
            for (qsizetype i = 0; i < set->count(); ++i)
                values << set->at(i);
            return values;
        }
    return {};
}

} // namespace

class TestComparePage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void emptySessionShowsNoBars();
    void cpuBreakdownByPathFollowsTheProfiles();
    void summaryShowsWholeInANarrowWindow();
    void barsEqualTheTableMeans();
    void withinNoiseLabelsAreMuted();
    void significantLabelsAreEmphasised();
    void verdictColumnNamesMethodAndOutliers();
    void runsColumnMarksNetworkLosses();
    void linesPerTargetFollowTheTable();
    void latencyDistributionOnTheHdrScale();
    void anotherLevelGetsItsOwnDistribution();
    void streamsShowThroughputOnly();
    void tinySweepFillsTheCharts();
    void openedSessionShowsEveryChartWhenChartsChange();

private:
    std::unique_ptr<test::UiHttpServers> m_servers;
};

// A session as the window opens it (with the copy its read made) on a shown
// page: when chartsChanged() comes, once, every chart shows the session's
// figures, known from its counts. twoTargetSession: host 100/110/120 and nat
// 90/95/100 complete requests per second at c=1, ten times that at c=10,
// 5141 bytes each.
void TestComparePage::openedSessionShowsEveryChartWhenChartsChange() {
    app::SessionDocument document;
    const auto page = pageFor(document);
    page->show();
    QStringList seen; // what the charts showed when chartsChanged() came
    connect(page.get(), &ui::ComparePage::chartsChanged, page.get(), [&] {
        QString shown;
        for (const char* name : kBarCharts) {
            auto* chart = test::pageChart<ModeBarChart>(*page, name);
            shown += QString::fromLatin1(name) + QLatin1Char('=');
            for (QBarSet* set : chart->series()->barSets())
                shown += QStringLiteral("%1:%2 ").arg(set->label()).arg(set->sum(), 0, 'f', 1);
        }
        auto* scaling = test::pageChart<ModeLineChart>(*page, "scalingChart");
        for (const QLineSeries* line : scaling->lines()) {
            shown += QStringLiteral("scaling %1:").arg(line->name());
            for (const QPointF& point : line->points())
                shown += QStringLiteral("%1 ").arg(point.y(), 0, 'f', 1);
        }
        shown += QStringLiteral("p99 lines %1, ")
                     .arg(test::pageChart<ModeLineChart>(*page, "p99ScalingChart")->lines().size());
        auto* distribution = test::pageChart<ModeLineChart>(*page, "latencyDistributionChart");
        shown += QStringLiteral("%1 (%2 lines)")
                     .arg(distribution->title())
                     .arg(distribution->lines().size());
        seen << shown;
    });

    app::Session opened = test::twoTargetSession();
    auto copy = std::make_shared<const app::Session>(opened);
    document.reset(std::move(opened), std::move(copy));
    QVERIFY(test::chartsCurrent(*page));
    QTest::qWait(50); // nothing more comes
    QCOMPARE(seen.size(), 1);
    const double hostKiB = 1100 * 5141 / 1024.0;
    const double natKiB = 950 * 5141 / 1024.0;
    const QString expected = QStringLiteral("primaryBars=host:1100.0 container-nat:950.0 "
                                            "transferBars=host:%1 container-nat:%2 ")
                                 .arg(hostKiB, 0, 'f', 1)
                                 .arg(natKiB, 0, 'f', 1);
    QVERIFY2(seen.front().startsWith(expected), qPrintable(seen.front()));
    QVERIFY2(seen.front().contains(QStringLiteral("scaling host:110.0 1100.0 "
                                                  "scaling container-nat:95.0 950.0 "
                                                  "p99 lines 2, ")),
             qPrintable(seen.front()));
    QVERIFY2(seen.front().endsWith(QStringLiteral("Latency by percentile at c=10 (2 lines)")),
             qPrintable(seen.front()));
    QVERIFY(page->isUpToDate());
}

void TestComparePage::initTestCase() {
    // Numbers as the C locale writes them, whatever the machine's.
    QLocale::setDefault(QLocale::c());
    m_servers = std::make_unique<test::UiHttpServers>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestComparePage::cleanup() {
    QGuiApplication::clipboard()->clear();
}

void TestComparePage::emptySessionShowsNoBars() {
    app::SessionDocument document;
    const auto page = pageFor(document);
    QCOMPARE(page->chartPanels().size(), 8);
    // The CPU breakdown by path shows only where there are profiles.
    QVERIFY(page->findChild<ui::ChartPanel*>(QStringLiteral("cpuByPathChart"))->isHidden());
    QVERIFY(
        page->findChild<ui::ChartPanel*>(QStringLiteral("cpuByPathDifferenceChart"))->isHidden());
    for (const char* name : kBarCharts) {
        auto* chart = test::pageChart<ModeBarChart>(*page, name);
        QVERIFY(chart);
        QCOMPARE(chart->series()->count(), 0);
        QVERIFY(chart->annotations()->labels().isEmpty());
    }
    auto* scaling = test::pageChart<ModeLineChart>(*page, "scalingChart");
    QVERIFY(scaling->lines().isEmpty());
    QVERIFY(page->findChild<QLabel*>(QStringLiteral("compareSummary"))
                ->text()
                .contains(QStringLiteral("No results")));
}

// Each mode's bar is its profile's µs per request by path (the means over
// the repetitions, other load left out), and the second chart each path's
// difference from the baseline's.
void TestComparePage::cpuBreakdownByPathFollowsTheProfiles() {
    app::SessionDocument document;
    document.reset(profiledSession());
    const auto page = pageFor(document);
    QVERIFY(!page->findChild<ui::ChartPanel*>(QStringLiteral("cpuByPathChart"))->isHidden());
    auto* bars = test::pageChart<ui::PathBreakdownChart>(*page, "cpuByPathChart");
    auto* difference = test::pageChart<ui::PathBreakdownChart>(*page, "cpuByPathDifferenceChart");
    QVERIFY(bars && difference);
    QCOMPARE(bars->data().modes,
             (std::vector<QString>{QStringLiteral("host"), QStringLiteral("nat")}));
    QCOMPARE(segmentValues(*bars, "TCP/IP"), (QList<qreal>{100, 120}));
    QCOMPARE(segmentValues(*bars, "conntrack"), (QList<qreal>{0, 20}));
    QCOMPARE(segmentValues(*bars, "user space"), (QList<qreal>{200, 200})); // the server's
    QVERIFY(segmentValues(*bars, "NAT").isEmpty());                         // no mode spent any
    // NAT's interval over its three repetitions of 110, 120 and 130.
    const auto& segments = bars->data().segments;
    const auto tcpAt = std::find_if(segments.begin(), segments.end(), [](const auto& segment) {
        return segment.path == engine::CpuPath::TcpIp;
    });
    QVERIFY(tcpAt != segments.end());
    const ui::PathSegment& tcp = *tcpAt;
    QVERIFY(tcp.ciLow[1] && *tcp.ciLow[1] < 120 && *tcp.ciHigh[1] > 120);
    QCOMPARE(difference->data().modes, (std::vector<QString>{QStringLiteral("nat")}));
    QCOMPARE(segmentValues(*difference, "TCP/IP"), (QList<qreal>{20}));
    QCOMPARE(segmentValues(*difference, "conntrack"), (QList<qreal>{20}));
    QVERIFY(segmentValues(*difference, "user space").isEmpty()); // the same in both
    QVERIFY(difference->title().contains(QStringLiteral("difference from host")));
}

void TestComparePage::summaryShowsWholeInANarrowWindow() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    page->resize(900, 700);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    auto* summary = page->findChild<QLabel*>(QStringLiteral("compareSummary"));
    QVERIFY(summary->text().startsWith(QStringLiteral("baseline: ")));
    // The whole text fits: on one line, or wrapped within the label's height.
    const int width = summary->contentsRect().width();
    const bool oneLine = summary->fontMetrics().horizontalAdvance(summary->text()) <= width;
    QVERIFY2(oneLine || (summary->wordWrap() &&
                         summary->heightForWidth(summary->width()) <= summary->height()),
             qPrintable(QStringLiteral("%1 px for '%2'").arg(width).arg(summary->text())));
}

void TestComparePage::barsEqualTheTableMeans() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    const app::Session& session = document.session();
    const app::Comparison comparison(session);
    // The highest level is chosen first.
    QCOMPARE(page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"))->currentData(), 10);

    for (size_t c = 0; c < std::size(kBarCharts); ++c) {
        auto* chart = test::pageChart<ModeBarChart>(*page, kBarCharts[c]);
        QVERIFY(chart);
        QCOMPARE(chart->series()->count(), int(session.targets.size()));
        for (int t = 0; t < int(session.targets.size()); ++t) {
            const app::Target& target = session.targets[size_t(t)];
            QBarSet* set = chart->series()->barSets().at(t);
            QCOMPARE(set->label(), target.displayName());
            QCOMPARE(set->color(), QColor::fromString(target.colour));
            const app::ComparisonRow* row = comparison.find(target.id, 10, kBarMetrics[c]);
            QVERIFY(row);
            QCOMPARE(set->at(t), row->statistics.mean);
            for (int other = 0; other < set->count(); ++other) {
                if (other != t)
                    QCOMPARE(set->at(other), 0.0);
            }
            // Error bar = the table's 95% interval.
            const ChartAnnotations::ErrorBar& bar = chart->annotations()->errorBars().at(t);
            QCOMPARE(bar.x, double(t));
            QCOMPARE(bar.low, *row->statistics.ci95Low);
            QCOMPARE(bar.high, *row->statistics.ci95High);
        }
        const auto& labels = chart->annotations()->labels();
        QCOMPARE(labels.size(), 2);
        QCOMPARE(labels[0].note, QStringLiteral("baseline"));
        QVERIFY2(labels[1].note.startsWith(QStringLiteral("−")) ||
                     labels[1].note.startsWith(QLatin1Char('+')),
                 qPrintable(labels[1].note));
        QVERIFY2(labels[1].note.contains(QStringLiteral("% vs host")), qPrintable(labels[1].note));
    }
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QCOMPARE(primary->title(), QStringLiteral("Requests/s at c=10"));
}

void TestComparePage::withinNoiseLabelsAreMuted() {
    // twoTargetSession: host 1000 ± 100 against nat 950 ± 50 req/s at c=10,
    // three runs each. In sequential order they are not pairs: Welch's
    // interval of the log figures includes 0%.
    app::Session session = test::twoTargetSession();
    session.plan.order = app::SweepOrder::Sequential;
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    const app::Comparison comparison(document.session());
    const app::ComparisonRow* row =
        comparison.find(document.session().targets[1].id, 10, app::Metric::RequestsPerSecond);
    QCOMPARE(row->verdict, app::Verdict::WithinNoise);
    auto* chart = test::pageChart<ModeBarChart>(*page, "primaryBars");
    const ChartAnnotations::Label& label = chart->annotations()->labels().at(1);
    QCOMPARE(label.style, ChartAnnotations::LabelStyle::Muted);
    QCOMPARE(label.note, ui::formatPercent(*row->vsBaselinePercent) +
                             QStringLiteral(" vs host\n(within noise)"));
    QCOMPARE(label.note.left(6), QStringLiteral("−13.5%")); // ratio of the geometric means
}

void TestComparePage::significantLabelsAreEmphasised() {
    app::SessionDocument document;
    document.reset(significantSession());
    const auto page = pageFor(document);
    auto* chart = test::pageChart<ModeBarChart>(*page, "primaryBars");
    const ChartAnnotations::Label& label = chart->annotations()->labels().at(1);
    QCOMPARE(label.note, QStringLiteral("−50.0% vs host"));
    QCOMPARE(label.style, ChartAnnotations::LabelStyle::Emphasis);
    QCOMPARE(label.value, QStringLiteral("500"));
    QCOMPARE(chart->annotations()->labels().at(0).value, QStringLiteral("1,000"));
    // Time per request is higher for the slower mode: +100%.
    auto* time = test::pageChart<ModeBarChart>(*page, "timeBars");
    QCOMPARE(time->annotations()->labels().at(1).note, QStringLiteral("+100.0% vs host"));
}

void TestComparePage::verdictColumnNamesMethodAndOutliers() {
    // Six interleaved runs each; the host's sixth stalled at 60 req/s: an
    // outlier by the IQR rule (Q1 94.83, Q3 101.08), kept in the mean.
    app::Session session =
        test::twoTargetRates({100, 101, 99, 102, 98, 60}, {90, 91, 89, 92, 88, 90}, 1'000'000);
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    QVERIFY(test::chartsCurrent(*page));
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    QVERIFY(view);
    QAbstractItemModel* model = view->model();
    QString hostVerdict;
    QString natVerdict;
    QString natMethod;
    for (int r = 0; r < model->rowCount(); ++r) {
        const auto cell = [&](int column) {
            return model->index(r, column).data().toString();
        };
        if (cell(ui::ComparisonTableModel::MetricColumn) !=
            app::metricLabel(app::Metric::RequestsPerSecond, app::TargetProtocol::Http))
            continue;
        (cell(ui::ComparisonTableModel::TargetColumn) == u"host" ? hostVerdict : natVerdict) =
            cell(ui::ComparisonTableModel::VerdictColumn);
        if (cell(ui::ComparisonTableModel::TargetColumn) != u"host")
            natMethod = cell(ui::ComparisonTableModel::MethodColumn);
    }
    QCOMPARE(hostVerdict, QStringLiteral("baseline, 1 outlier"));
    QVERIFY2(!natVerdict.isEmpty(), qPrintable(natVerdict));
    QCOMPARE(natMethod, QStringLiteral("paired"));
    // The host's bar carries the marker under its label.
    auto* chart = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QVERIFY(chart);
    const auto& labels = chart->annotations()->labels();
    QVERIFY(!labels.isEmpty());
    QVERIFY2(labels.at(0).note.contains(QStringLiteral("! 1 outlier run")),
             qPrintable(labels.at(0).note));
}

// Repetitions whose network stack lost or refused packets are marked beside the count of runs,
// with how many and the first one's notes in the tooltip.
void TestComparePage::runsColumnMarksNetworkLosses() {
    app::Session session = test::twoTargetRates({100, 101, 99}, {90, 91, 89}, 1'000'000);
    app::NamespaceCounters host;
    host.roles = {QStringLiteral("server host")};
    host.listenDrops = 7;
    session.results[3].net = app::NetCounterWindow{{host}, std::nullopt};
    session.results[5].net = session.results[3].net;
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    QVERIFY(test::chartsCurrent(*page));
    auto* view = page->findChild<QTableView*>(QStringLiteral("comparisonTable"));
    QVERIFY(view);
    QAbstractItemModel* model = view->model();
    QStringList runs;
    QString tip;
    for (int r = 0; r < model->rowCount(); ++r) {
        if (model->index(r, ui::ComparisonTableModel::MetricColumn).data().toString() !=
            app::metricLabel(app::Metric::RequestsPerSecond, app::TargetProtocol::Http))
            continue;
        const QModelIndex cell = model->index(r, ui::ComparisonTableModel::RepetitionsColumn);
        runs << cell.data().toString();
        if (model->index(r, ui::ComparisonTableModel::TargetColumn).data().toString() ==
            u"container-nat")
            tip = cell.data(Qt::ToolTipRole).toString();
    }
    QCOMPARE(runs, (QStringList{QStringLiteral("3"), QStringLiteral("3 \u26912")}));
    QVERIFY2(tip.contains(QStringLiteral("2 of 3 repetitions lost or refused packets in the "
                                         "network stack: 7 connection attempts dropped by a "
                                         "listener (server host)")),
             qPrintable(tip));
}

void TestComparePage::linesPerTargetFollowTheTable() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    const app::Session& session = document.session();
    const app::Comparison comparison(session);
    const std::pair<const char*, app::Metric> charts[] = {
        {"scalingChart", app::Metric::RequestsPerSecond},
        {"p99ScalingChart", app::Metric::LatencyP99}};
    for (const auto& [name, metric] : charts) {
        auto* chart = test::pageChart<ModeLineChart>(*page, name);
        QVERIFY(chart);
        QCOMPARE(chart->lines().size(), int(session.targets.size()));
        for (int t = 0; t < chart->lines().size(); ++t) {
            const app::Target& target = session.targets[size_t(t)];
            const QLineSeries* line = chart->lines().at(t);
            QCOMPARE(line->name(), target.displayName());
            QCOMPARE(line->color(), QColor::fromString(target.colour));
            const QList<QPointF> points = line->points();
            const QList<QPointF> levels = chart->data().lines[size_t(t)].points;
            QCOMPARE(points.size(), 2);
            QCOMPARE(levels.size(), 2);
            for (qsizetype i = 0; i < points.size(); ++i) {
                const int level = int(levels[i].x());
                const app::ComparisonRow* row = comparison.find(target.id, level, metric);
                QVERIFY(row);
                QCOMPARE(points[i].y(), row->statistics.mean);
                QCOMPARE(levels[i].y(), row->statistics.mean);
                // Plotted on a log scale.
                QCOMPARE(points[i].x(), std::log10(double(level)));
            }
        }
    }
    // Ticks at the measured levels.
    auto* scaling = test::pageChart<ModeLineChart>(*page, "scalingChart");
    auto* axis = qobject_cast<QCategoryAxis*>(scaling->axes(Qt::Horizontal).first());
    QVERIFY(axis);
    QCOMPARE(axis->categoriesLabels(), QStringList({QStringLiteral("1"), QStringLiteral("10")}));
    QCOMPARE(axis->endValue(QStringLiteral("10")), 1.0);
}

void TestComparePage::latencyDistributionOnTheHdrScale() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    auto* chart = test::pageChart<ModeLineChart>(*page, "latencyDistributionChart");
    QCOMPARE(chart->lines().size(), 2);
    auto* axis = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Horizontal).first());
    QVERIFY(axis);
    const QStringList ticks{QStringLiteral("50%"), QStringLiteral("90%"), QStringLiteral("99%")};
    QCOMPARE(axis->categoriesLabels().mid(0, 3), ticks);
    // host at c=10: 150 of 300 requests at 0.25 ms, then ~1 ms, then 9 ms.
    const QList<QPointF> host = chart->lines().at(0)->points();
    QVERIFY(host.size() > 5);
    QCOMPARE(host.first().x(), 0.0);
    QVERIFY(qAbs(host.first().y() - 0.25) < 0.01);
    for (qsizetype i = 1; i < host.size(); ++i) {
        QVERIFY(host[i].x() >= host[i - 1].x());
        QVERIFY(host[i].y() >= host[i - 1].y());
    }
    QVERIFY(host.last().x() <= ui::kMaxPlottedPercentileScale);
    QVERIFY(qAbs(host.last().y() - 9.0) < 0.01);

    // Imported results carry only the percentiles their tool printed.
    app::Session imported = test::twoTargetSession();
    imported.results.clear();
    imported.results.push_back(test::importedResult(imported.targets[0].id, 100, 0, 9000, 4.5));
    document.reset(imported);
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(chart->lines().size(), 1);
    const QList<QPointF> printed = chart->lines().at(0)->points();
    QCOMPARE(printed.size(), 3); // 50, 66, 99; 100% is infinitely far right
    QCOMPARE(printed.last(), QPointF(2, 4.5));
}

void TestComparePage::anotherLevelGetsItsOwnDistribution() {
    // At c=1 every request of host took 2 ms, at c=10 a quarter of them
    // 0.25 ms: the chart must follow the level picked, whose histograms the
    // first snapshot did not merge.
    app::Session session = test::twoTargetSession();
    for (app::PointResult& result : session.results) {
        if (result.concurrency == 1 && result.targetId == session.targets[0].id)
            result = test::measuredResult(result.targetId, 1, result.repetition, result.complete,
                                          1.0, {{2'000'000, 100}});
    }
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    auto* chart = test::pageChart<ModeLineChart>(*page, "latencyDistributionChart");
    QVERIFY(qAbs(chart->lines().at(0)->points().first().y() - 0.25) < 0.01);

    auto* level = page->findChild<QComboBox*>(QStringLiteral("concurrencyCombo"));
    level->setCurrentIndex(level->findData(1));
    Q_EMIT level->activated(level->currentIndex());
    QVERIFY(test::chartsCurrent(*page));
    QCOMPARE(chart->title(), QStringLiteral("Latency by percentile at c=1"));
    QCOMPARE(chart->lines().size(), 2);
    for (const QPointF& point : chart->lines().at(0)->points())
        QVERIFY2(qAbs(point.y() - 2.0) < 0.002, qPrintable(QString::number(point.y())));
}

void TestComparePage::streamsShowThroughputOnly() {
    app::Session session;
    for (int i = 0; i < 2; ++i) {
        app::Target target =
            app::makeTarget(i == 0 ? QStringLiteral("host") : QStringLiteral("bridge"),
                            app::DeploymentMode::Host, i);
        target.protocol = app::TargetProtocol::TcpStream;
        target.address = QStringLiteral("127.0.0.1:%1").arg(12865 + i);
        session.targets.push_back(target);
        for (int r = 0; r < 2; ++r) {
            app::PointResult result;
            result.targetId = target.id;
            result.concurrency = 1;
            result.repetition = r;
            result.durationSeconds = 10;
            result.bytesSent = uint64_t(625'000'000) * uint64_t(2 - i); // 1000 / 500 Mbit/s
            session.results.push_back(result);
        }
    }
    app::SessionDocument document;
    document.reset(session);
    const auto page = pageFor(document);
    auto* primary = test::pageChart<ModeBarChart>(*page, "primaryBars");
    QCOMPARE(primary->title(), QStringLiteral("Throughput at c=1"));
    QCOMPARE(primary->series()->count(), 2);
    QCOMPARE(primary->series()->barSets().at(0)->at(0), 1000.0);
    // Two identical runs on each side: no noise to judge by, never significant.
    QCOMPARE(primary->annotations()->labels().at(1).note,
             QStringLiteral("−50.0% vs host\n(n/a: no spread on either side)"));
    for (const char* name : {"transferBars", "timeBars"}) {
        auto* chart = test::pageChart<ModeBarChart>(*page, name);
        QCOMPARE(chart->series()->count(), 0);
        QVERIFY2(chart->title().endsWith(QStringLiteral("not measured for tcp-stream")),
                 qPrintable(chart->title()));
    }
    auto* distribution = test::pageChart<ModeLineChart>(*page, "latencyDistributionChart");
    QVERIFY(distribution->lines().isEmpty());
    QVERIFY(distribution->title().endsWith(QStringLiteral("not measured for tcp-stream")));
}

void TestComparePage::tinySweepFillsTheCharts() {
    app::SessionDocument document;
    document.reset(test::directVsProxy(*m_servers, 200));
    app::SweepRunner runner(&document);
    const auto page = pageFor(document);
    std::optional<app::SweepOutcome> outcome;
    QCoro::connect(runner.run(), page.get(),
                   [&outcome](const app::SweepOutcome& ended) { outcome = ended; });
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 60000);
    QCOMPARE(outcome->status, app::SweepOutcome::Status::Completed);
    QVERIFY(test::chartsCurrent(*page));

    const app::Session& session = document.session();
    QCOMPARE(session.results.size(), size_t(8));
    const app::Comparison comparison(session);
    for (size_t c = 0; c < std::size(kBarCharts); ++c) {
        auto* chart = test::pageChart<ModeBarChart>(*page, kBarCharts[c]);
        QCOMPARE(chart->series()->count(), 2);
        for (int t = 0; t < 2; ++t) {
            const app::ComparisonRow* row =
                comparison.find(session.targets[size_t(t)].id, 4, kBarMetrics[c]);
            QVERIFY(row);
            QVERIFY(row->statistics.mean > 0);
            QCOMPARE(chart->series()->barSets().at(t)->at(t), row->statistics.mean);
        }
        QVERIFY(chart->annotations()->labels().at(1).note.contains(QStringLiteral("% vs direct")));
    }
    for (const char* name : {"scalingChart", "p99ScalingChart", "latencyDistributionChart"}) {
        auto* chart = test::pageChart<ModeLineChart>(*page, name);
        QCOMPARE(chart->lines().size(), 2);
        for (const QLineSeries* line : chart->lines())
            QVERIFY(line->count() >= 2);
    }
}

QTEST_MAIN(TestComparePage)
#include "tst_compare_page.moc"
