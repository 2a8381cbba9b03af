#include "ui/compare/capacity_view.h"

#include "app/session/comparison_report.h"
#include "ui/common/chart_panel.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/table_copy.h"
#include "ui/compare/capacity_chart_data.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/rate_latency_chart.h"

#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace loadscope::ui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number = false) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString verdictText(const app::ComparisonRow& row) {
    switch (row.verdict) {
    case app::Verdict::Baseline:
        return QObject::tr("baseline");
    case app::Verdict::Significant:
        return QObject::tr("significant");
    case app::Verdict::WithinNoise:
        return QObject::tr("within noise");
    case app::Verdict::NotApplicable:
        break;
    }
    return row.verdictNote.isEmpty() ? QStringLiteral("n/a")
                                     : QStringLiteral("n/a: ") + row.verdictNote;
}

} // namespace

CapacityView::CapacityView(QWidget* parent)
    : QWidget(parent) {
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("capacityTitle"));
    m_title->setWordWrap(true);
    m_bars = new ModeBarChart;
    m_steps = new RateLatencyChart;
    const std::pair<QChart*, const char*> charts[] = {{m_bars, "capacityBars"},
                                                      {m_steps, "capacityStepsChart"}};
    for (const auto& [chart, name] : charts) {
        auto* panel = new ChartPanel(chart, QString::fromLatin1(name));
        panel->setObjectName(QString::fromLatin1(name));
        m_panels << panel;
    }
    m_panels[0]->view()->setToolTip(wrappedToolTip(
        tr("Each mode's capacity: the highest offered rate that met the objective, the mean over "
           "its searches with their 95% interval, and the change against the baseline's "
           "capacity, paired by repetition when the searches were interleaved.")));
    m_panels[1]->view()->setToolTip(wrappedToolTip(
        tr("Every step of every search: its latency at the objective's percentile, counted from "
           "each request's intended start, against the rate it achieved. A ring marks each "
           "search's answer; the dashed line is the objective.")));

    m_table = new QTableWidget(0, 6);
    m_table->setObjectName(QStringLiteral("capacityTable"));
    m_table->setHorizontalHeaderLabels({tr("Mode"), tr("Capacity req/s"), tr("95% interval"),
                                        tr("vs baseline"), tr("Verdict"), tr("Searches")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    installTsvCopy(m_table);

    auto* chartRow = new QSplitter(Qt::Horizontal);
    chartRow->addWidget(m_panels[0]);
    chartRow->addWidget(m_panels[1]);
    chartRow->addWidget(m_table);
    chartRow->setStretchFactor(0, 2);
    chartRow->setStretchFactor(1, 3);
    chartRow->setStretchFactor(2, 2);
    chartRow->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(chartRow, 1);
    setComparison(std::make_shared<const app::Session>(),
                  std::make_shared<const app::CapacityComparison>());
}

void CapacityView::setComparison(std::shared_ptr<const app::Session> session,
                                 std::shared_ptr<const app::CapacityComparison> comparison) {
    m_session = std::move(session);
    m_comparison = std::move(comparison);
    const app::CapacityComparison& capacity = *m_comparison;
    m_title->setText(capacity.isEmpty()
                         ? QString()
                         : tr("Capacity at %1, %2 connections, each search to within %3 %")
                               .arg(app::objectiveText(capacity.objective()))
                               .arg(capacity.connections())
                               .arg(capacity.precisionPercent()));
    m_bars->setData(capacityBarChartData(*m_session, capacity));
    m_steps->setData(capacityStepsChartData(*m_session, capacity));
    updateTable();
    Q_EMIT chartsChanged();
}

void CapacityView::updateTable() {
    const app::CapacityComparison& capacity = *m_comparison;
    const int modes = int(capacity.rows().size());
    m_table->setRowCount(modes + int(capacity.searches().size()));
    int row = 0;
    for (const app::CapacityRow& mode : capacity.rows()) {
        const app::Target* target = m_session->findTarget(mode.targetId);
        const app::SampleStatistics& s = mode.figures.statistics;
        m_table->setItem(row, 0, cell(target ? target->displayName() : QString()));
        m_table->setItem(row, 1,
                         cell(s.n > 0 ? app::formatFigure(s.mean) : QStringLiteral("—"), true));
        m_table->setItem(row, 2,
                         cell(s.ci95Low && s.ci95High
                                  ? QStringLiteral("%1 – %2").arg(app::formatFigure(*s.ci95Low),
                                                                  app::formatFigure(*s.ci95High))
                                  : QStringLiteral("—"),
                              true));
        QString change = QStringLiteral("—");
        if (mode.figures.vsBaselinePercent) {
            change = app::formatPercent(*mode.figures.vsBaselinePercent);
            if (mode.figures.vsBaselineLowPercent && mode.figures.vsBaselineHighPercent)
                change += QStringLiteral(" [%1, %2]")
                              .arg(app::formatPercent(*mode.figures.vsBaselineLowPercent),
                                   app::formatPercent(*mode.figures.vsBaselineHighPercent));
        }
        m_table->setItem(row, 3, cell(change, true));
        m_table->setItem(row, 4, cell(s.n > 0 ? verdictText(mode.figures) : QString()));
        QString searches = tr("%1 with a capacity of %2").arg(s.n).arg(mode.searches.size());
        if (mode.clientLimited > 0)
            searches += tr(", %1 client-limited").arg(mode.clientLimited);
        if (mode.noRateMeets > 0)
            searches += tr(", %1 met by no rate").arg(mode.noRateMeets);
        m_table->setItem(row, 5, cell(searches));
        ++row;
    }
    // Then each search's answer, as the report prints it.
    for (const app::CapacitySearch& search : capacity.searches()) {
        const app::Target* target = m_session->findTarget(search.targetId);
        m_table->setItem(row, 0,
                         cell(tr("%1, search %2")
                                  .arg(target ? target->displayName() : QString())
                                  .arg(search.repetition + 1)));
        m_table->setItem(row, 1,
                         cell(search.capacity() && search.stop != app::CapacityStop::ClientLimited
                                  ? app::formatFigure(*search.capacity())
                                  : QStringLiteral("—"),
                              true));
        for (int column = 2; column < 5; ++column)
            m_table->setItem(row, column, cell(QString()));
        m_table->setItem(
            row, 5, cell(tr("%1 after %2 steps").arg(search.summary()).arg(search.steps.size())));
        ++row;
    }
    m_table->resizeColumnsToContents();
}

} // namespace loadscope::ui
