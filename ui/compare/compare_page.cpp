#include "ui/compare/compare_page.h"

#include "app/session/comparison.h"
#include "app/session/level_naming.h"
#include "app/session/session_document.h"
#include "ui/common/chart_panel.h"
#include "ui/common/metric_tooltip.h"
#include "ui/compare/capacity_view.h"
#include "ui/compare/compare_chart_data.h"
#include "ui/compare/compare_report.h"
#include "ui/compare/compare_snapshot.h"
#include "ui/compare/comparison_table_panel.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/mode_line_chart.h"
#include "ui/compare/path_breakdown_chart.h"
#include "ui/compare/rate_sweep_view.h"

#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCoroSignal>
#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace loadscope::ui {

namespace {

// The item of the level and metric pickers that shows every row of the table.
constexpr int kAll = -1;

// Keeps the user's pick (a "userPick" property set when the user chose an
// item) while it is still offered; otherwise, or when the user has not
// chosen, selects `fallback`.
void refill(QComboBox* combo, const QList<std::pair<QString, QVariant>>& items,
            const QVariant& fallback) {
    const QVariant picked = combo->property("userPick");
    const QSignalBlocker blocker(combo);
    combo->clear();
    for (const auto& [text, value] : items)
        combo->addItem(text, value);
    int index = picked.isValid() ? combo->findData(picked) : -1;
    if (index < 0)
        index = combo->findData(fallback);
    combo->setCurrentIndex(index >= 0 ? index : 0);
    combo->setEnabled(combo->count() > 1);
}

} // namespace

ComparePage::ComparePage(app::SessionDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_snapshot(std::make_shared<CompareSnapshot>(
          CompareSnapshot{std::make_shared<const app::Session>(),
                          {},
                          std::make_shared<const LevelDistributions>(),
                          {},
                          false,
                          std::make_shared<const app::CapacityComparison>()})) {
    m_rebuildTimer = new QTimer(this);
    m_rebuildTimer->setSingleShot(true);
    // The next turn of the event loop: the signals of one burst of edits (an
    // import, a reset with its two signals) come in one turn and make one
    // rebuild. Waiting longer only delayed every chart of an opened session.
    m_rebuildTimer->setInterval(0);
    connect(m_rebuildTimer, &QTimer::timeout, this, &ComparePage::rebuild);
    m_chartStepTimer = new QTimer(this);
    m_chartStepTimer->setSingleShot(true);
    m_chartStepTimer->setInterval(0);
    connect(m_chartStepTimer, &QTimer::timeout, this, &ComparePage::setNextChart);

    createControls();
    createCharts();

    m_table = new ComparisonTablePanel;

    auto* chartGrid = new QWidget;
    m_chartGrid = chartGrid;
    auto* grid = new QGridLayout(chartGrid);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    for (qsizetype i = 0; i < m_panels.size(); ++i)
        grid->addWidget(m_panels[i], int(i / 3), int(i % 3));

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("compareSplitter"));
    m_rateView = new RateSweepView;
    m_rateView->setObjectName(QStringLiteral("rateSweepView"));
    m_rateView->hide();
    m_capacityView = new CapacityView;
    m_capacityView->setObjectName(QStringLiteral("capacityView"));
    m_capacityView->hide();
    splitter->addWidget(chartGrid);
    splitter->addWidget(m_rateView);
    splitter->addWidget(m_capacityView);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setStretchFactor(3, 1);
    splitter->setSizes({560, 400, 400, 200});
    splitter->setChildrenCollapsible(false);

    auto* controls = new QHBoxLayout;
    const auto addControl = [this, controls](const QString& text, QComboBox* combo) {
        auto* label = new QLabel(text);
        label->setBuddy(combo);
        controls->addWidget(label);
        controls->addWidget(combo);
        controls->addSpacing(12);
        return label;
    };
    addControl(tr("&Protocol:"), m_protocolCombo);
    m_levelLabel = addControl(tr("&Concurrency:"), m_levelCombo);
    m_levelLabel->setObjectName(QStringLiteral("levelLabel"));
    addControl(tr("&Metric:"), m_metricCombo);
    m_poolSources = new QCheckBox(tr("P&ool tools and load models"));
    m_poolSources->setObjectName(QStringLiteral("poolSourcesCheck"));
    m_poolSources->setToolTip(
        tr("Average a target's results of different tools and load models (imported ab, "
           "wrk2's fixed rate, Loadscope's closed loop) as repetitions of one figure. Off: "
           "each is its own row."));
    connect(m_poolSources, &QCheckBox::toggled, this, &ComparePage::scheduleRebuild);
    controls->addWidget(m_poolSources);
    controls->addSpacing(12);
    controls->addWidget(m_summary, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);

    connect(m_document, &app::SessionDocument::sessionChanged, this, &ComparePage::scheduleRebuild);
    connect(m_document, &app::SessionDocument::resultsChanged, this, &ComparePage::scheduleRebuild);
    connect(m_document, &app::SessionDocument::sessionReplaced, this,
            &ComparePage::sessionReplaced);
    // Empty until the first snapshot arrives; an empty session needs none.
    applySnapshot(m_snapshot);
    if (!m_document->session().results.empty() || !m_document->session().targets.empty())
        rebuild();
}

ComparePage::~ComparePage() = default;

void ComparePage::createControls() {
    m_protocolCombo = new QComboBox;
    m_protocolCombo->setObjectName(QStringLiteral("protocolCombo"));
    m_protocolCombo->setToolTip(tr("Targets of one protocol are compared at a time"));
    m_levelCombo = new QComboBox;
    m_levelCombo->setObjectName(QStringLiteral("concurrencyCombo"));
    m_levelCombo->setToolTip(tr("The concurrency the bars and the latency distribution show"));
    m_metricCombo = new QComboBox;
    m_metricCombo->setObjectName(QStringLiteral("metricCombo"));
    m_metricCombo->setToolTip(tr("The metric of the first bar chart and the first line chart"));
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // It takes what the controls leave and wraps there: cut to one line, a
    // narrow window showed its end with the baseline's name cut off.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summary->setWordWrap(true);

    // Only a user's pick sticks; until then each rebuild picks the default
    // (the highest level, the primary metric), which moves as results arrive.
    // "All" filters the table only: the charts keep the last level or metric
    // picked ("chartPick"), which a chart needs one of.
    for (QComboBox* combo : {m_protocolCombo, m_levelCombo, m_metricCombo}) {
        connect(combo, &QComboBox::activated, combo, [combo] {
            combo->setProperty("userPick", combo->currentData());
            if (combo->currentData().toInt() != kAll)
                combo->setProperty("chartPick", combo->currentData());
        });
    }
    connect(m_protocolCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateControls();
        updateCharts();
    });
    for (QComboBox* combo : {m_levelCombo, m_metricCombo}) {
        connect(combo, &QComboBox::currentIndexChanged, this, [this] {
            applyTableFilter();
            updateCharts();
        });
    }
}

int ComparePage::chartLevel() const {
    const QVariant picked = m_levelCombo->currentData();
    if (picked.isValid() && picked.toInt() != kAll)
        return picked.toInt();
    const QVariant shown =
        shownLevel(*m_snapshot->session, m_snapshot->comparison, m_protocolCombo->currentData(),
                   m_levelCombo->property("chartPick"));
    return shown.isValid() ? shown.toInt() : 0;
}

app::Metric ComparePage::chartMetric() const {
    const auto protocol = app::TargetProtocol(m_protocolCombo->currentData().toInt());
    const QVariant picked = m_metricCombo->currentData();
    if (picked.isValid() && picked.toInt() != kAll)
        return app::Metric(picked.toInt());
    const QVariant kept = m_metricCombo->property("chartPick");
    const std::vector<app::Metric> offered = app::metricsFor(protocol);
    if (kept.isValid() &&
        std::find(offered.begin(), offered.end(), app::Metric(kept.toInt())) != offered.end())
        return app::Metric(kept.toInt());
    return app::primaryMetric(protocol);
}

void ComparePage::applyTableFilter() {
    const QVariant level = m_levelCombo->currentData();
    const QVariant metric = m_metricCombo->currentData();
    m_table->setFilter(
        level.isValid() && level.toInt() != kAll ? std::optional(level.toInt()) : std::nullopt,
        metric.isValid() && metric.toInt() != kAll ? std::optional(app::Metric(metric.toInt()))
                                                   : std::nullopt);
}

QTableView* ComparePage::table() const {
    return m_table->view();
}

void ComparePage::sessionReplaced() {
    // Another session: the picks, the filter and the sort were about the one before.
    for (QComboBox* combo : {m_protocolCombo, m_levelCombo, m_metricCombo}) {
        combo->setProperty("userPick", QVariant());
        combo->setProperty("chartPick", QVariant());
    }
    m_table->reset();
}

void ComparePage::createCharts() {
    m_primaryBars = new ModeBarChart;
    m_transferBars = new ModeBarChart;
    m_timeBars = new ModeBarChart;
    m_scaling = new ModeLineChart(ModeLineChart::XAxis::Concurrency);
    m_p99Scaling = new ModeLineChart(ModeLineChart::XAxis::Concurrency);
    m_distribution = new ModeLineChart(ModeLineChart::XAxis::Percentile);
    m_pathBars = new PathBreakdownChart;
    m_pathDifference = new PathBreakdownChart;
    const std::pair<QChart*, const char*> charts[] = {
        {m_primaryBars, "primaryBars"},    {m_transferBars, "transferBars"},
        {m_timeBars, "timeBars"},          {m_scaling, "scalingChart"},
        {m_p99Scaling, "p99ScalingChart"}, {m_distribution, "latencyDistributionChart"},
        {m_pathBars, "cpuByPathChart"},    {m_pathDifference, "cpuByPathDifferenceChart"},
    };
    for (const auto& [chart, name] : charts) {
        auto* panel = new ChartPanel(chart, QString::fromLatin1(name));
        panel->setObjectName(QString::fromLatin1(name));
        m_panels << panel;
    }
}

void ComparePage::scheduleRebuild() {
    // A hidden page (another tab during a sweep) only notes the change: a
    // session of a thousand results is not re-charted after every point
    // nobody looks at.
    if (isVisible())
        m_rebuildTimer->start();
    else
        m_stale = true;
}

void ComparePage::rebuildIfPending() {
    if (m_rebuildTimer->isActive() || m_stale) {
        m_rebuildTimer->stop();
        rebuild();
    }
}

void ComparePage::showEvent(QShowEvent* event) {
    // Starts before the first paint; the charts of the previous state show
    // until the snapshot arrives (milliseconds for a small session).
    rebuildIfPending();
    QWidget::showEvent(event);
}

void ComparePage::rebuild() {
    m_stale = false;
    // The document's immutable copy: made on the GUI thread after an edit
    // (results share their histogram bytes, so even ten thousand of them
    // copy in 10-16 ms: tests/bench/gui_responsiveness prints the figure),
    // but not for a session just opened, whose copy was made where it was read.
    std::shared_ptr<const app::Session> input = m_document->sharedSession();
    const QVariant protocolPick = m_protocolCombo->property("userPick");
    const QVariant levelPick = m_levelCombo->property("chartPick");
    const app::ComparisonOptions options{m_poolSources->isChecked()};
    m_distributionJob.cancel(); // of the old session
    m_rebuildJob.start(
        [input, protocolPick, levelPick, options](const app::JobCheck& check) {
            return buildCompareSnapshot(input, protocolPick, levelPick, &check, options);
        },
        [this](std::shared_ptr<const CompareSnapshot> snapshot) {
            if (snapshot)
                applySnapshot(std::move(snapshot));
        });
}

bool ComparePage::isUpToDate() const {
    return !m_rebuildTimer->isActive() && !m_stale && !m_rebuildJob.isRunning() &&
           !m_distributionJob.isRunning() && m_chartSteps.empty();
}

void ComparePage::applySnapshot(std::shared_ptr<const CompareSnapshot> snapshot) {
    std::shared_ptr<const CompareSnapshot> previous =
        std::exchange(m_snapshot, std::move(snapshot));
    m_distributions = m_snapshot->distributions;
    const app::Session& session = *m_snapshot->session;
    // A rate sweep gets its own charts; the closed-loop ones stay for
    // sessions that have closed-loop results (or none yet).
    const bool rated = !m_snapshot->rateCurves.empty();
    m_rateView->setCurves(m_snapshot->session, m_snapshot->rateCurves);
    m_rateView->setVisible(rated);
    m_capacityView->setComparison(m_snapshot->session, m_snapshot->capacity);
    const bool searched = m_capacityView->hasSearches();
    m_capacityView->setVisible(searched);
    m_chartGrid->setVisible(m_snapshot->closedLoop || (!rated && !searched));
    QList<std::pair<QString, QVariant>> protocols;
    for (app::TargetProtocol protocol : comparedProtocols(session, m_snapshot->comparison))
        protocols.append({app::targetProtocolId(protocol), int(protocol)});
    // The same choice the snapshot's distributions were built for.
    refill(m_protocolCombo, protocols,
           shownProtocol(session, m_snapshot->comparison, m_protocolCombo->property("userPick")));

    updateControls();
    // A chart per turn of the event loop: the six of a large session took
    // 25 ms together, and more on a busy machine, all in one stall.
    setCharts(ChartPace::OnePerTurn);
    // The table model let go of the previous snapshot above. Its session copy
    // is freed on a worker, not here: ten thousand results take milliseconds
    // to free, too.
    if (previous.use_count() == 1)
        QThreadPool::globalInstance()->start(
            [previous = std::move(previous)]() mutable { previous.reset(); });
}

void ComparePage::requestDistributions(int concurrency) {
    if (m_distributionJob.isRunning() && m_requestedLevel == concurrency)
        return;
    m_requestedLevel = concurrency;
    const std::shared_ptr<const app::Session> input = m_snapshot->session;
    m_distributionJob.start(
        [input, concurrency](const app::JobCheck&) {
            return buildLevelDistributions(*input, concurrency);
        },
        [this](std::shared_ptr<const LevelDistributions> distributions) {
            m_distributions = std::move(distributions);
            updateCharts();
        });
}

void ComparePage::updateControls() {
    const app::Session& session = *m_snapshot->session;
    const app::Comparison& comparison = m_snapshot->comparison;
    const auto protocol = app::TargetProtocol(m_protocolCombo->currentData().toInt());
    const auto targets = comparedTargets(session, comparison, protocol);

    // The level's name follows the compared targets (level_naming.h).
    const app::LevelNaming naming(targets);
    m_levelLabel->setText(naming.pickerLabel());
    m_levelCombo->setToolTip(
        naming.namesConnections()
            ? tr("The connections the bars and the latency distribution show")
            : tr("The concurrency the bars and the latency distribution show"));
    QList<std::pair<QString, QVariant>> levels;
    const std::vector<int> compared = comparedLevels(comparison, targets);
    if (compared.size() > 1)
        levels.append({naming.namesConnections() ? tr("All connections") : tr("All levels"), kAll});
    for (int level : compared)
        levels.append({naming.levelText(level), level});
    refill(m_levelCombo, levels,
           shownLevel(session, comparison, int(protocol), m_levelCombo->property("chartPick")));

    QList<std::pair<QString, QVariant>> metrics;
    if (!comparison.isEmpty())
        metrics.append({tr("All metrics"), kAll});
    const bool profiled = hasProfiles(session, comparison, protocol);
    for (app::Metric metric : app::metricsFor(protocol)) {
        // A profile's figures only where there are profiles to show.
        if (app::isProfileMetric(metric) && !profiled)
            continue;
        metrics.append({app::metricLabel(metric, protocol), int(metric)});
    }
    const QVariant keptMetric = m_metricCombo->property("chartPick");
    refill(m_metricCombo, metrics,
           keptMetric.isValid() && m_metricCombo->findData(keptMetric) >= 0
               ? keptMetric
               : QVariant(int(app::primaryMetric(protocol))));
    for (int i = 0; i < m_metricCombo->count(); ++i) {
        const int metric = m_metricCombo->itemData(i).toInt();
        m_metricCombo->setItemData(
            i,
            metric == kAll ? tr("Every metric in the table; the charts keep the last one picked")
                           : metricToolTip(app::Metric(metric), protocol),
            Qt::ToolTipRole);
    }
    m_metricCombo->setEnabled(m_metricCombo->count() > 0);

    m_table->setComparison(session, comparisonOf(m_snapshot), protocol);
    applyTableFilter();
}

void ComparePage::updateCharts() {
    setCharts(ChartPace::AllAtOnce);
}

void ComparePage::setCharts(ChartPace pace) {
    const app::Session& session = *m_snapshot->session;
    const app::Comparison& comparison = m_snapshot->comparison;
    const auto protocol = app::TargetProtocol(m_protocolCombo->currentData().toInt());
    const int level = chartLevel();
    const app::Metric metric = chartMetric();

    // The figures are read now (a fraction of a millisecond); each chart then
    // takes milliseconds to rebuild its series and axes.
    std::vector<std::function<void()>> steps;
    const auto bars = [&](ModeBarChart* chart, app::Metric shown) {
        steps.push_back([chart, figures = modeBarChartData(session, comparison, shown, protocol,
                                                           level)] { chart->setData(figures); });
    };
    const auto lines = [&](ModeLineChart* chart, ModeLineChartData figures) {
        steps.push_back([chart, figures = std::move(figures)] { chart->setData(figures); });
    };
    const auto paths = [&](PathBreakdownChart* chart, PathBreakdownKind kind) {
        steps.push_back([chart, figures = pathBreakdownData(session, comparison, protocol, level,
                                                            kind)] { chart->setData(figures); });
    };
    bars(m_primaryBars, metric);
    bars(m_transferBars, app::Metric::TransferRate);
    bars(m_timeBars, app::Metric::TimePerRequest);
    lines(m_scaling, scalingChartData(session, comparison, metric, protocol));
    lines(m_p99Scaling, scalingChartData(session, comparison, app::Metric::LatencyP99, protocol));
    const bool profiled = hasProfiles(session, comparison, protocol);
    for (ChartPanel* panel : std::as_const(m_panels))
        if (panel->chart() == m_pathBars || panel->chart() == m_pathDifference)
            panel->setVisible(profiled);
    // Set whether shown or not: a hidden chart names no level it does not have either.
    paths(m_pathBars, PathBreakdownKind::PerRequest);
    paths(m_pathDifference, PathBreakdownKind::VsBaseline);
    const bool merging = m_distributions->concurrency != level && !comparison.isEmpty();
    if (!merging) {
        lines(m_distribution, latencyDistributionData(session, comparison,
                                                      m_distributions->byTarget, protocol, level));
    } else {
        ModeLineChartData placeholder =
            latencyDistributionData(session, comparison, {}, protocol, level);
        placeholder.emptyText = tr("merging the histograms at c=%1…").arg(level);
        lines(m_distribution, std::move(placeholder));
    }
    // Each chart explains its metric where the user looks at it.
    const app::Metric explained[] = {metric, app::Metric::TransferRate, app::Metric::TimePerRequest,
                                     metric, app::Metric::LatencyP99,   app::Metric::LatencyP50};
    for (qsizetype i = 0; i < m_panels.size() && i < qsizetype(std::size(explained)); ++i)
        m_panels[i]->view()->setToolTip(metricToolTip(explained[i], protocol));
    m_panels[std::size(explained) - 1]->view()->setToolTip(
        wrappedToolTip(tr("The latency below which each share of the requests finished, from "
                          "the histograms of all repetitions at this level merged. The x axis "
                          "stretches the tail: 90%, 99%, 99.9% are equally far apart.")));
    const QString pathsExplained =
        tr("From each point's CPU profile (every CPU sampled about a thousand times a second "
           "over the measured window): the CPU time of the client, the server, the relays and "
           "the interrupts per request, by the kernel path each sample's call chain was in, "
           "user space apart; the machine's other load is left out. Hover a segment for its "
           "95% interval over the repetitions.");
    for (ChartPanel* panel : std::as_const(m_panels)) {
        if (panel->chart() == m_pathBars)
            panel->view()->setToolTip(wrappedToolTip(pathsExplained));
        if (panel->chart() == m_pathDifference)
            panel->view()->setToolTip(wrappedToolTip(
                tr("Each mode's CPU per request on each path less the baseline's: what the "
                   "mode adds (above 0) or saves (below) and where. ") +
                pathsExplained));
    }
    updateSummary();

    m_chartSteps = std::move(steps);
    m_chartStepTimer->stop();
    if (pace == ChartPace::OnePerTurn) {
        m_chartStepTimer->start();
    } else {
        for (const auto& step : m_chartSteps)
            step();
        m_chartSteps.clear();
        Q_EMIT chartsChanged();
    }
    // Last: a merge that is done at once (a small session) sets the charts
    // again from within, and must find the placeholder already shown.
    if (merging)
        requestDistributions(level);
}

void ComparePage::setNextChart() {
    if (m_chartSteps.empty())
        return;
    const std::function<void()> step = std::move(m_chartSteps.front());
    m_chartSteps.erase(m_chartSteps.begin());
    step();
    if (!m_chartSteps.empty()) {
        m_chartStepTimer->start();
        return;
    }
    Q_EMIT chartsChanged();
}

void ComparePage::updateSummary() {
    const app::Session& session = *m_snapshot->session;
    const app::Comparison& comparison = m_snapshot->comparison;
    if (comparison.isEmpty()) {
        m_summary->setText(tr("No results yet: run the sweep on the Run page, or import reports."));
        return;
    }
    QStringList parts;
    if (const app::Target* baseline = session.findTarget(comparison.baselineTargetId()))
        parts << tr("baseline: %1").arg(baseline->displayName());
    parts << tr("%n result(s)", nullptr, int(session.results.size()));
    parts << tr("error bars: 95% CI over repetitions");
    m_summary->setText(parts.join(QStringLiteral(" · ")));
}

QCoro::Task<app::Result<void>> ComparePage::exportReportPdf(QString path) {
    rebuildIfPending();
    while (!isUpToDate()) {
        if (!co_await qCoro(this, &ComparePage::chartsChanged, std::chrono::seconds(60)))
            co_return app::makeError(app::ErrorCode::Internal,
                                     tr("the charts were not rebuilt within a minute"));
    }
    co_return writeCompareReportPdf(report(), path);
}

CompareReport ComparePage::report() const {
    const app::Session& session = *m_snapshot->session;
    CompareReport report;
    report.title = m_document->displayName();
    const app::Target* baseline = session.findTarget(m_snapshot->comparison.baselineTargetId());
    const app::LevelNaming naming(
        comparedTargets(session, m_snapshot->comparison,
                        app::TargetProtocol(m_protocolCombo->currentData().toInt())));
    report.subtitle << tr("Protocol %1, bars and latency distribution at %2; baseline: %3")
                           .arg(m_protocolCombo->currentText(), naming.levelText(chartLevel()),
                                baseline ? baseline->displayName() : tr("none"));
    report.subtitle << tr("%n result(s). Error bars: 95% confidence intervals over repetitions.",
                          nullptr, int(session.results.size())) +
                           QLatin1Char(' ') + m_table->methodSummary();
    report.subtitle << tr("Table: %1, %2%3 (%4 of %5 rows).")
                           .arg(m_levelCombo->currentText(), m_metricCombo->currentText(),
                                m_table->filterText().isEmpty()
                                    ? QString()
                                    : tr(", rows holding “%1”").arg(m_table->filterText()))
                           .arg(m_table->shownRowCount())
                           .arg(m_table->rowCount());
    report.subtitle << tr("Generated %1 by Loadscope %2")
                           .arg(QDateTime::currentDateTime().toString(Qt::ISODate),
                                QStringLiteral(LOADSCOPE_VERSION));
    if (m_chartGrid->isVisibleTo(this)) {
        for (ChartPanel* panel : std::as_const(m_panels))
            if (!panel->isHidden()) // the CPU breakdown only with profiles
                report.charts << panel->chart();
    }
    if (m_rateView->isVisibleTo(this)) {
        for (ChartPanel* panel : m_rateView->chartPanels())
            report.charts << panel->chart();
    }
    if (m_capacityView->isVisibleTo(this)) {
        for (ChartPanel* panel : m_capacityView->chartPanels())
            report.charts << panel->chart();
    }
    report.table = m_table->shownRows();
    return report;
}

} // namespace loadscope::ui
