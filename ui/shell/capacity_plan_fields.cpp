#include "ui/shell/capacity_plan_fields.h"

#include "app/session/capacity_search.h"
#include "ui/common/metric_tooltip.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

namespace loadscope::ui {

namespace {

QDoubleSpinBox* spin(const QString& name, double minimum, double maximum, int decimals,
                     const QString& suffix) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    box->setAccelerated(true);
    box->setMinimumWidth(110);
    return box;
}

QWidget* row(std::initializer_list<QWidget*> widgets) {
    auto* cell = new QWidget;
    auto* layout = new QHBoxLayout(cell);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget* widget : widgets)
        layout->addWidget(widget);
    layout->addStretch();
    return cell;
}

} // namespace

CapacityPlanFields::CapacityPlanFields(QWidget* parent)
    : QWidget(parent) {
    m_percentile = new QComboBox;
    m_percentile->setObjectName(QStringLiteral("capacityPercentileCombo"));
    for (double p : {50.0, 90.0, 95.0, 99.0, 99.9, 99.99})
        m_percentile->addItem(app::objectivePercentileLabel(p), p);
    m_percentile->setToolTip(wrappedToolTip(
        tr("The percentile of the latency counted from each request's intended start "
           "(corrected for coordinated omission) that the objective bounds.")));
    m_bound =
        spin(QStringLiteral("capacityBoundSpin"), 0.001, app::kMaxObjectiveBoundMs, 3, tr(" ms"));
    m_bound->setToolTip(wrappedToolTip(tr("The latency the percentile may not exceed.")));
    auto* atMost = new QLabel(QStringLiteral("≤"));

    m_judgeFailed = new QCheckBox(tr("Failed at most"));
    m_judgeFailed->setObjectName(QStringLiteral("capacityJudgeFailedCheck"));
    m_maxFailed = spin(QStringLiteral("capacityMaxFailedSpin"), 0, 100, 3, tr(" %"));
    m_maxFailed->setToolTip(wrappedToolTip(
        tr("A step whose failed requests exceed this share of those that ended misses the "
           "objective (loadscope-cli --max-failed). Off: failures are not judged.")));
    m_judgeAchieved = new QCheckBox(tr("Achieved at least"));
    m_judgeAchieved->setObjectName(QStringLiteral("capacityJudgeAchievedCheck"));
    m_minAchieved = spin(QStringLiteral("capacityMinAchievedSpin"), 0.1, 100, 1, tr(" %"));
    m_minAchieved->setToolTip(wrappedToolTip(
        tr("A step whose achieved rate fell below this share of the offered one misses: the "
           "server did not take the rate (loadscope-cli --min-achieved). Off: not judged.")));

    m_precision = spin(QStringLiteral("capacityPrecisionSpin"), app::kMinCapacityPrecisionPercent,
                       app::kMaxCapacityPrecisionPercent, 1, tr(" %"));
    m_precision->setPrefix(QStringLiteral("±"));
    m_precision->setToolTip(wrappedToolTip(
        tr("The search stops once the lowest rate that missed the objective is within this "
           "share above the highest that met it: the capacity is known to this precision.")));
    m_maxSteps = new QSpinBox;
    m_maxSteps->setObjectName(QStringLiteral("capacityMaxStepsSpin"));
    m_maxSteps->setRange(app::kMinCapacitySteps, app::kMaxCapacitySteps);
    m_maxSteps->setPrefix(tr("at most "));
    m_maxSteps->setSuffix(tr(" steps"));
    m_maxSteps->setToolTip(wrappedToolTip(tr("Fixed-rate steps per search, the probe apart.")));
    m_minStep = spin(QStringLiteral("capacityMinStepSpin"), app::kMinCapacityStepSeconds,
                     app::kMaxCapacityStepSeconds, 2, tr(" s"));
    m_maxStep = spin(QStringLiteral("capacityMaxStepSpin"), app::kMinCapacityStepSeconds,
                     app::kMaxCapacityStepSeconds, 2, tr(" s"));
    const QString stepTip = wrappedToolTip(
        tr("Each step runs long enough for %1 requests beyond the objective's percentile "
           "(1000 requests for p99 at its rate), so that the percentile is an order statistic "
           "with about ten above it; at least the shortest, at most the longest. The probe, a "
           "closed loop that finds the order of magnitude, runs the shortest.")
            .arg(app::kCapacityTailSamples));
    m_minStep->setToolTip(stepTip);
    m_maxStep->setToolTip(stepTip);

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    form->addRow(row({m_percentile, atMost, m_bound}));
    form->addRow(row({m_judgeFailed, m_maxFailed, m_judgeAchieved, m_minAchieved}));
    form->addRow(tr("Search:"), row({m_precision, m_maxSteps}));
    form->addRow(tr("Steps:"), row({m_minStep, new QLabel(tr("to")), m_maxStep}));

    const auto changed = [this] {
        updateEnabled();
        if (!m_loading)
            Q_EMIT edited();
    };
    connect(m_percentile, &QComboBox::currentIndexChanged, this, changed);
    for (QCheckBox* box : {m_judgeFailed, m_judgeAchieved})
        connect(box, &QCheckBox::toggled, this, changed);
    for (QDoubleSpinBox* box :
         {m_bound, m_maxFailed, m_minAchieved, m_precision, m_minStep, m_maxStep})
        connect(box, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_maxSteps, &QSpinBox::valueChanged, this, changed);
    load(app::CapacityPlan{});
}

void CapacityPlanFields::load(const app::CapacityPlan& plan) {
    m_loading = true;
    const app::CapacityObjective& objective = plan.objective;
    int index = m_percentile->findData(objective.percentile);
    if (index < 0) {
        // A percentile from a file the list does not name: offered as it is.
        m_percentile->addItem(app::objectivePercentileLabel(objective.percentile),
                              objective.percentile);
        index = m_percentile->count() - 1;
    }
    m_percentile->setCurrentIndex(index);
    m_bound->setValue(objective.boundMs);
    m_judgeFailed->setChecked(objective.maxFailedPercent.has_value());
    m_maxFailed->setValue(objective.maxFailedPercent.value_or(0.1));
    m_judgeAchieved->setChecked(objective.minAchievedPercent.has_value());
    m_minAchieved->setValue(objective.minAchievedPercent.value_or(95));
    m_precision->setValue(plan.precisionPercent);
    m_maxSteps->setValue(plan.maxSteps);
    m_minStep->setValue(plan.minStepSeconds);
    m_maxStep->setValue(plan.maxStepSeconds);
    updateEnabled();
    m_loading = false;
}

app::CapacityPlan CapacityPlanFields::plan() const {
    app::CapacityPlan plan;
    plan.objective.percentile = m_percentile->currentData().toDouble();
    plan.objective.boundMs = m_bound->value();
    if (m_judgeFailed->isChecked())
        plan.objective.maxFailedPercent = m_maxFailed->value();
    if (m_judgeAchieved->isChecked())
        plan.objective.minAchievedPercent = m_minAchieved->value();
    plan.precisionPercent = m_precision->value();
    plan.maxSteps = m_maxSteps->value();
    plan.minStepSeconds = m_minStep->value();
    plan.maxStepSeconds = m_maxStep->value();
    return plan;
}

void CapacityPlanFields::updateEnabled() {
    m_maxFailed->setEnabled(m_judgeFailed->isChecked());
    m_minAchieved->setEnabled(m_judgeAchieved->isChecked());
}

} // namespace loadscope::ui
