#include "ui/compare/rate_sweep_view.h"

#include "ui/common/chart_panel.h"
#include "ui/common/chart_style.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/table_copy.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/rate_chart_data.h"
#include "ui/compare/rate_latency_chart.h"

#include <QChartView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace loadscope::ui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number = true) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString optionalText(const std::optional<double>& value) {
    return value ? formatValue(*value) : QStringLiteral("—");
}

} // namespace

RateSweepView::RateSweepView(QWidget* parent)
    : QWidget(parent) {
    m_percentile = new QComboBox;
    m_percentile->setObjectName(QStringLiteral("ratePercentileCombo"));
    for (double p : app::kRateCurvePercentiles)
        m_percentile->addItem(percentileLabel(p), p);
    m_percentile->setCurrentIndex(1); // p99, what the knee is judged by
    m_percentile->setToolTip(tr("The latency percentile the line chart plots"));
    m_objective = new QDoubleSpinBox;
    m_objective->setObjectName(QStringLiteral("latencyObjectiveSpin"));
    m_objective->setRange(0.001, 3'600'000);
    m_objective->setDecimals(3);
    m_objective->setValue(10);
    m_objective->setSuffix(tr(" ms"));
    m_objective->setAccelerated(true);
    m_objective->setToolTip(wrappedToolTip(
        tr("The latency objective (SLO) on p99. A mode's knee is the highest offered rate, "
           "stepping up from the lowest, before the first level whose p99 reaches it.")));

    m_latency = new RateLatencyChart;
    m_kneeBars = new ModeBarChart;
    const std::pair<QChart*, const char*> charts[] = {{m_latency, "rateLatencyChart"},
                                                      {m_kneeBars, "kneeBars"}};
    for (const auto& [chart, name] : charts) {
        auto* panel = new ChartPanel(chart, QString::fromLatin1(name));
        panel->setObjectName(QString::fromLatin1(name));
        m_panels << panel;
    }
    m_panels[0]->view()->setToolTip(wrappedToolTip(
        tr("Each mode's latency, counted from when each request was due (corrected for "
           "coordinated omission), against the throughput it achieved at each offered rate. "
           "A ring marks the knee; the dashed line is the objective.")));

    m_table = new QTableWidget(0, 6);
    m_table->setObjectName(QStringLiteral("kneeTable"));
    m_table->setHorizontalHeaderLabels({tr("Mode"), tr("Knee (offered req/s)"),
                                        tr("Achieved req/s"), tr("p99 ms"),
                                        tr("Uncorrected p99 ms"), tr("Levels under objective")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    installTsvCopy(m_table);

    auto* controls = new QHBoxLayout;
    auto* latencyLabel = new QLabel(tr("Rate sweep — l&atency:"));
    latencyLabel->setBuddy(m_percentile);
    auto* objectiveLabel = new QLabel(tr("p99 &objective:"));
    objectiveLabel->setBuddy(m_objective);
    controls->addWidget(latencyLabel);
    controls->addWidget(m_percentile);
    controls->addSpacing(12);
    controls->addWidget(objectiveLabel);
    controls->addWidget(m_objective);
    controls->addStretch(1);

    auto* chartRow = new QSplitter(Qt::Horizontal);
    chartRow->addWidget(m_panels[0]);
    chartRow->addWidget(m_panels[1]);
    chartRow->addWidget(m_table);
    chartRow->setStretchFactor(0, 3);
    chartRow->setStretchFactor(1, 2);
    chartRow->setStretchFactor(2, 2);
    chartRow->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(chartRow, 1);

    connect(m_percentile, &QComboBox::currentIndexChanged, this, &RateSweepView::refresh);
    connect(m_objective, &QDoubleSpinBox::valueChanged, this, &RateSweepView::refresh);
    refresh();
}

void RateSweepView::setCurves(std::shared_ptr<const app::Session> session,
                              std::vector<app::RateCurve> curves) {
    m_session = std::move(session);
    m_curves = std::move(curves);
    refresh();
}

double RateSweepView::objectiveMs() const {
    return m_objective->value();
}

void RateSweepView::setObjectiveMs(double milliseconds) {
    m_objective->setValue(milliseconds);
}

double RateSweepView::percentile() const {
    return m_percentile->currentData().toDouble();
}

void RateSweepView::setPercentile(double percentile) {
    const int index = m_percentile->findData(percentile);
    if (index >= 0)
        m_percentile->setCurrentIndex(index);
}

void RateSweepView::refresh() {
    static const app::Session kEmpty;
    const app::Session& session = m_session ? *m_session : kEmpty;
    m_latency->setData(rateChartData(session, m_curves, percentile(), objectiveMs()));
    m_kneeBars->setData(kneeBarChartData(session, m_curves, objectiveMs()));
    updateTable();
    Q_EMIT chartsChanged();
}

void RateSweepView::updateTable() {
    m_table->setRowCount(int(m_curves.size()));
    for (size_t i = 0; i < m_curves.size(); ++i) {
        const app::RateCurve& curve = m_curves[i];
        const auto knee = app::kneeIndex(curve, objectiveMs());
        const int row = int(i);
        m_table->setItem(row, 0, cell(curve.label, false));
        if (knee) {
            const app::RateLevel& level = curve.levels[*knee];
            m_table->setItem(row, 1, cell(formatValue(level.offeredRate)));
            m_table->setItem(row, 2, cell(formatValue(level.achievedRate)));
            m_table->setItem(row, 3, cell(optionalText(level.corrected(99))));
            m_table->setItem(row, 4, cell(optionalText(level.uncorrected(99))));
        } else {
            m_table->setItem(row, 1, cell(tr("none")));
            for (int column = 2; column < 5; ++column)
                m_table->setItem(row, column, cell(QStringLiteral("—")));
        }
        m_table->setItem(row, 5,
                         cell(QStringLiteral("%1 of %2")
                                  .arg(knee ? int(*knee) + 1 : 0)
                                  .arg(curve.levels.size())));
    }
    m_table->resizeColumnsToContents();
}

} // namespace loadscope::ui
