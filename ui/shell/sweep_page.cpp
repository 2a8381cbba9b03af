#include "ui/shell/sweep_page.h"

#include "app/session/session_document.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/capacity_plan_fields.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/sweep_estimate_panel.h"
#include "ui/shell/sweep_plan_text.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>

namespace loadscope::ui {

using app::PointLimit;
using app::SweepOrder;
using app::SweepPlan;

namespace {

QDoubleSpinBox* secondsSpin(double minimum, double maximum, const QString& name) {
    auto* spin = new QDoubleSpinBox;
    spin->setObjectName(name);
    spin->setRange(minimum, maximum);
    spin->setDecimals(1);
    spin->setSingleStep(1);
    spin->setSuffix(QObject::tr(" s"));
    spin->setAccelerated(true);
    spin->setMinimumWidth(140);
    return spin;
}

QLabel* note(const QString& text) {
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

// A field's parsed value into `into` when it parsed (else `into` keeps the
// plan's), and its refusal for the field's error line, empty when none.
template <typename T> QString takeParsed(const app::Result<T>& parsed, T& into) {
    if (!parsed)
        return parsed.error().message;
    into = *parsed;
    return {};
}

} // namespace

SweepPage::SweepPage(app::SessionDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document) {
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(buildPlanFields(), 3);
    m_estimate = new SweepEstimatePanel;
    layout->addWidget(m_estimate, 2);

    connect(m_document, &app::SessionDocument::sessionChanged, this, &SweepPage::followDocument);
    // Another session: a field typed for the one before goes, even when both plans are alike.
    connect(m_document, &app::SessionDocument::sessionReplaced, this,
            [this] { loadPlan(m_document->session().plan); });
    connect(m_document, &app::SessionDocument::resultsChanged, this, &SweepPage::updateEstimate);
    loadPlan(m_document->session().plan);
}

QWidget* SweepPage::buildPlanFields() {
    auto* panel = new QWidget;
    // Fields a few words wide read better than fields across a wide screen.
    panel->setMaximumWidth(680);
    auto* column = new QVBoxLayout(panel);
    column->setContentsMargins(0, 0, 0, 0);

    auto* load = new QGroupBox(tr("Load"));
    auto* loadForm = new QFormLayout(load);
    m_loadForm = loadForm;
    loadForm->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_levelKind = new QComboBox;
    m_levelKind->setObjectName(QStringLiteral("levelKindCombo"));
    m_levelKind->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_levelKind->addItem(tr("Concurrency levels"),
                         static_cast<int>(app::SweepLevelKind::Concurrency));
    m_levelKind->addItem(tr("Rate levels (req/s) at N connections"),
                         static_cast<int>(app::SweepLevelKind::Rate));
    m_levelKind->addItem(tr("Capacity at a latency objective"),
                         static_cast<int>(app::SweepLevelKind::Capacity));
    m_levelKind->setToolTip(wrappedToolTip(
        tr("Concurrency: closed loop, each connection sends when its last answer came (ab, "
           "wrk). Rate: requests leave on a schedule at a fixed rate (wrk2 -R), latency "
           "counted from when each request was due, so a stalling server cannot hide its "
           "stalls; step the rate up to find where each mode's latency gives way. Capacity: "
           "per target and repetition, a search for the highest fixed rate that meets a "
           "latency objective (p99 ≤ 5 ms), with no levels to guess.")));
    addFormRow(loadForm, tr("S&weep over:"), m_levelKind);
    m_levels = new QLineEdit;
    m_levels->setObjectName(QStringLiteral("levelsEdit"));
    m_levels->setPlaceholderText(QStringLiteral("1, 10, 100, 1000"));
    m_levels->setToolTip(wrappedToolTip(
        tr("Connections kept busy at once (ab -c), one level after another in this order. "
           "Each level is measured on every target; an HTTP/2 target keeps its streams open "
           "on each connection, so its concurrency is the level × its streams.")));
    m_levelsError = new FieldError;
    m_levelsError->setObjectName(QStringLiteral("levelsError"));
    m_concurrencyRows << addFormRow(loadForm, tr("&Concurrency levels:"), m_levels, m_levelsError);
    m_rateLevels = new QLineEdit;
    m_rateLevels->setObjectName(QStringLiteral("rateLevelsEdit"));
    m_rateLevels->setPlaceholderText(QStringLiteral("1000, 2000, 5000, 10k"));
    m_rateLevels->setToolTip(wrappedToolTip(
        tr("Requests per second over all connections together (wrk2 -R), one level after "
           "another in this order. Each level is measured on every target.")));
    m_rateLevelsError = new FieldError;
    m_rateLevelsError->setObjectName(QStringLiteral("rateLevelsError"));
    m_rateLevelsRow =
        addFormRow(loadForm, tr("Rate &levels (req/s):"), m_rateLevels, m_rateLevelsError);
    m_rateRows << m_rateLevelsRow;
    m_capacityFields = new CapacityPlanFields;
    m_capacityFields->setObjectName(QStringLiteral("capacityFields"));
    m_capacityRows << addFormRow(loadForm, tr("Ob&jective:"), m_capacityFields);
    m_rateConnections = new QSpinBox;
    m_rateConnections->setObjectName(QStringLiteral("rateConnectionsSpin"));
    m_rateConnections->setRange(1, app::kMaxConcurrency);
    m_rateConnections->setMinimumWidth(140);
    m_rateConnections->setToolTip(wrappedToolTip(
        tr("Connections the rate is spread over (wrk2 -c). Too few for a slow server and "
           "the schedule falls behind: the result then shows the backlog.")));
    m_rateRows << addFormRow(loadForm, tr("Co&nnections:"), m_rateConnections);
    m_arrival = new QComboBox;
    m_arrival->setObjectName(QStringLiteral("arrivalCombo"));
    m_arrival->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_arrival->addItem(tr("Constant (evenly spaced)"), static_cast<int>(engine::Arrival::Constant));
    m_arrival->addItem(tr("Poisson (random gaps)"), static_cast<int>(engine::Arrival::Poisson));
    m_arrival->setToolTip(wrappedToolTip(
        tr("Constant: each connection sends on its own evenly spaced schedule, as wrk2. "
           "Poisson: exponentially distributed gaps of the same mean, as independent users "
           "arrive.")));
    m_rateRows << addFormRow(loadForm, tr("&Arrival:"), m_arrival);
    m_timerSlack = new QSpinBox;
    m_timerSlack->setObjectName(QStringLiteral("timerSlackSpin"));
    m_timerSlack->setRange(0, app::kMaxTimerSlackUs);
    m_timerSlack->setSingleStep(50);
    m_timerSlack->setSuffix(QStringLiteral(" µs"));
    m_timerSlack->setSpecialValueText(tr("None: each request at its own time"));
    m_timerSlack->setMinimumWidth(140);
    m_timerSlack->setToolTip(wrappedToolTip(
        tr("Requests due within this much after the one that is due go out with it, on one "
           "wake-up: each at most this early, its latency from its send, so no latency "
           "grows (loadscope-cli --timer-slack). Fewer wake-ups cost the client less CPU at "
           "high rates, and the server sees the requests of a wake-up arrive together "
           "(1000 µs bunches them as wrk2's millisecond timers do); none keeps every "
           "request to its own due time.")));
    m_rateRows << addFormRow(loadForm, tr("Timer s&lack:"), m_timerSlack);

    m_byDuration = new QRadioButton(tr("Run each point for a &duration:"));
    m_byDuration->setObjectName(QStringLiteral("byDurationRadio"));
    // The plan's own ranges (app::checkSeconds), to the spin box's tenths.
    m_duration = secondsSpin(0.1, app::kMaxSeconds, QStringLiteral("durationSpin"));
    m_duration->setToolTip(wrappedToolTip(tr("Measured time of each point (wrk -d, ab -t).")));
    m_byRequests = new QRadioButton(tr("Send a fixed number of re&quests:"));
    m_byRequests->setObjectName(QStringLiteral("byRequestsRadio"));
    m_requests = new QDoubleSpinBox;
    m_requests->setObjectName(QStringLiteral("requestsSpin"));
    m_requests->setDecimals(0);
    m_requests->setRange(1, 1e12);
    m_requests->setSingleStep(1000);
    m_requests->setAccelerated(true);
    m_requests->setMinimumWidth(140);
    m_requests->setToolTip(wrappedToolTip(tr("Requests measured per point, over all its "
                                             "connections together (ab -n).")));
    auto* limits = new QButtonGroup(this);
    limits->addButton(m_byDuration);
    limits->addButton(m_byRequests);
    loadForm->addRow(m_byDuration, m_duration);
    loadForm->addRow(m_byRequests, m_requests);
    m_limitRows << m_byDuration << m_byRequests;
    m_limitWarning = new FieldError;
    m_limitWarning->setObjectName(QStringLiteral("limitWarning"));
    m_limitWarning->setAdvisory(true);
    loadForm->addRow(m_limitWarning);
    column->addWidget(load);

    auto* placement = new QGroupBox(tr("Load generator"));
    auto* placementForm = new QFormLayout(placement);
    placementForm->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_threads = new QSpinBox;
    m_threads->setObjectName(QStringLiteral("threadsSpin"));
    m_threads->setRange(0, app::kMaxThreads);
    m_threads->setMinimumWidth(140);
    m_threads->setSpecialValueText(tr("one per core (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(wrappedToolTip(tr("Worker threads of the load generator (wrk -t); "
                                            "connections are shared out among them.")));
    addFormRow(placementForm, tr("&Threads:"), m_threads);
    m_cpus = new QLineEdit;
    m_cpus->setObjectName(QStringLiteral("cpusEdit"));
    m_cpus->setPlaceholderText(tr("no pinning, e.g. 0-3,8"));
    m_cpus->setToolTip(wrappedToolTip(
        tr("CPUs the worker threads are pinned to, as taskset takes them. Keep them apart "
           "from the server's CPUs so that the two do not compete.")));
    m_cpusError = new FieldError;
    m_cpusError->setObjectName(QStringLiteral("cpusError"));
    addFormRow(placementForm, tr("CPU &pinning:"), m_cpus, m_cpusError);
    m_wakeCoalescing = new QCheckBox(tr("Pause before waiting while the server is busy"));
    m_wakeCoalescing->setObjectName(QStringLiteral("wakeCoalescingCheck"));
    m_wakeCoalescing->setToolTip(wrappedToolTip(
        tr("At concurrency levels, while responses come often, each worker sleeps 10-50 µs "
           "before it waits for them (at most a hundredth of the mean latency), so that a busy "
           "server's writes do not each wake it: the server pays for those wake-ups. No "
           "latency changes, each response keeps its arrival time. Off: wait at once, as wrk "
           "(loadscope-cli --no-wake-coalescing).")));
    addFormRow(placementForm, tr("&Wake coalescing:"), m_wakeCoalescing);
    m_profile = new QCheckBox(tr("Sample every CPU at each point"));
    m_profile->setObjectName(QStringLiteral("profileCheck"));
    m_profile->setToolTip(wrappedToolTip(
        tr("Takes a CPU profile of every point: each CPU sampled about a thousand times a "
           "second over the measured window, each sample given to the process it ran for "
           "(client, server, relay, other) and the kernel path its call chain was in (TCP/IP, "
           "conntrack, NAT, bridge, ...). The Compare page then shows the CPU per request by "
           "path. Needs root or kernel.perf_event_paranoid at 0 or below; a point where the "
           "machine refuses it says why. On for lab targets (loadscope-cli --profile).")));
    addFormRow(placementForm, tr("CPU &profile:"), m_profile);
    column->addWidget(placement);

    auto* repetition = new QGroupBox(tr("Repetition"));
    auto* repetitionForm = new QFormLayout(repetition);
    repetitionForm->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_warmup = secondsSpin(0, app::kMaxSeconds, QStringLiteral("warmupSpin"));
    m_warmup->setToolTip(wrappedToolTip(tr("Load sent before each point and not measured, so "
                                           "that caches and connection pools are warm.")));
    addFormRow(repetitionForm, tr("&Warm-up:"), m_warmup);
    m_repetitions = new QSpinBox;
    m_repetitions->setObjectName(QStringLiteral("repetitionsSpin"));
    m_repetitions->setRange(1, app::kMaxRepetitions);
    m_repetitions->setMinimumWidth(140);
    m_repetitions->setToolTip(wrappedToolTip(
        tr("Times each point is measured. Two or more give the spread and tell whether a "
           "difference between modes is larger than run-to-run noise.")));
    addFormRow(repetitionForm, tr("&Repetitions:"), m_repetitions);
    // "Precision: ±2 %, up to 10 repetitions": repeat until tight.
    m_precision = new QDoubleSpinBox;
    m_precision->setObjectName(QStringLiteral("precisionSpin"));
    m_precision->setRange(0, app::kMaxPrecisionPercent);
    m_precision->setDecimals(1);
    m_precision->setSingleStep(0.5);
    m_precision->setPrefix(QStringLiteral("±"));
    m_precision->setSuffix(QStringLiteral(" %"));
    m_precision->setSpecialValueText(tr("off"));
    m_precision->setToolTip(wrappedToolTip(
        tr("Repeat until every target's ratio to the baseline is known within this many "
           "percent (95% interval, paired by repetition): after a level's repetitions, rounds "
           "of every target are added until it is, at most the repetitions on the right. Off: "
           "exactly the repetitions above.")));
    m_maxRepetitions = new QSpinBox;
    m_maxRepetitions->setObjectName(QStringLiteral("maxRepetitionsSpin"));
    m_maxRepetitions->setRange(1, app::kMaxRepetitions);
    m_maxRepetitions->setPrefix(tr("up to "));
    m_maxRepetitions->setSuffix(tr(" repetitions"));
    auto* precisionCell = new QWidget;
    auto* precisionLayout = new QHBoxLayout(precisionCell);
    precisionLayout->setContentsMargins(0, 0, 0, 0);
    precisionLayout->addWidget(m_precision);
    precisionLayout->addWidget(m_maxRepetitions);
    precisionLayout->addStretch();
    addFormRow(repetitionForm, tr("&Precision:"), precisionCell)->setBuddy(m_precision);
    m_pause = secondsSpin(0, app::kMaxSeconds, QStringLiteral("pauseSpin"));
    m_pause->setToolTip(wrappedToolTip(tr("Idle time between two points, to let the server "
                                          "and the network settle (TIME_WAIT, queues).")));
    addFormRow(repetitionForm, tr("P&ause between points:"), m_pause);
    m_order = new QComboBox;
    m_order->setObjectName(QStringLiteral("orderCombo"));
    m_order->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_order->addItem(tr("Interleaved"), static_cast<int>(SweepOrder::Interleaved));
    m_order->addItem(tr("Sequential"), static_cast<int>(SweepOrder::Sequential));
    m_orderExplanation = note({});
    m_orderExplanation->setObjectName(QStringLiteral("orderExplanation"));
    auto* orderCell = new QWidget;
    orderCell->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* orderLayout = new QVBoxLayout(orderCell);
    orderLayout->setContentsMargins(0, 0, 0, 0);
    orderLayout->addWidget(m_order);
    orderLayout->addWidget(m_orderExplanation);
    addFormRow(repetitionForm, tr("&Order:"), orderCell)->setBuddy(m_order);
    column->addWidget(repetition);

    m_planError = new FieldError;
    m_planError->setObjectName(QStringLiteral("planError"));
    // A rule between fields (precision and repetitions, CPUs and the machine): the plan's
    // first field is where the user starts reading it again.
    m_planError->setField(panel, tr("Sweep plan"));
    column->addWidget(m_planError);
    column->addStretch();

    connect(m_levels, &QLineEdit::textEdited, this, &SweepPage::applyFields);
    connect(m_rateLevels, &QLineEdit::textEdited, this, &SweepPage::applyFields);
    connect(m_rateConnections, &QSpinBox::valueChanged, this, &SweepPage::applyFields);
    connect(m_arrival, &QComboBox::currentIndexChanged, this, &SweepPage::applyFields);
    connect(m_timerSlack, &QSpinBox::valueChanged, this, &SweepPage::applyFields);
    connect(m_capacityFields, &CapacityPlanFields::edited, this, &SweepPage::applyFields);
    connect(m_levelKind, &QComboBox::currentIndexChanged, this, [this] {
        updateLevelRows();
        applyFields();
    });
    connect(m_cpus, &QLineEdit::textEdited, this, &SweepPage::applyFields);
    connect(m_wakeCoalescing, &QCheckBox::toggled, this, &SweepPage::applyFields);
    connect(m_profile, &QCheckBox::toggled, this, &SweepPage::applyFields);
    connect(m_byDuration, &QRadioButton::toggled, this, &SweepPage::applyFields);
    for (QDoubleSpinBox* spin : {m_duration, m_requests, m_warmup, m_pause, m_precision})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &SweepPage::applyFields);
    for (QSpinBox* spin : {m_threads, m_repetitions, m_maxRepetitions})
        connect(spin, &QSpinBox::valueChanged, this, &SweepPage::applyFields);
    connect(m_order, &QComboBox::currentIndexChanged, this, [this] {
        updateOrderExplanation();
        applyFields();
    });
    return panel;
}

std::optional<FieldInError> SweepPage::fieldInError() const {
    return firstFieldInError(this);
}

QString SweepPage::estimateText() const {
    if (m_estimateStale)
        m_estimate->showSession(m_document->session());
    m_estimateStale = false;
    return m_estimate->estimateText();
}

void SweepPage::loadPlan(const SweepPlan& plan) {
    m_loading = true;
    m_plan = plan;
    m_levelKind->setCurrentIndex(m_levelKind->findData(static_cast<int>(plan.levelKind)));
    m_levels->setText(formatConcurrencyLevels(plan.concurrencyLevels));
    m_rateLevels->setText(formatRateLevels(plan.rateLevels));
    m_rateConnections->setValue(plan.rateConnections);
    m_arrival->setCurrentIndex(m_arrival->findData(static_cast<int>(plan.arrival)));
    m_timerSlack->setValue(plan.timerSlackUs);
    m_capacityFields->load(plan.capacity);
    m_wakeCoalescing->setChecked(plan.wakeCoalescing);
    m_profile->setChecked(plan.profile);
    m_byDuration->setChecked(plan.limit == PointLimit::Duration);
    m_byRequests->setChecked(plan.limit == PointLimit::Requests);
    m_duration->setValue(plan.durationSeconds);
    m_requests->setValue(static_cast<double>(plan.requestsPerPoint));
    m_threads->setValue(plan.threads);
    m_cpus->setText(formatCpuList(plan.cpus));
    m_warmup->setValue(plan.warmupSeconds);
    m_repetitions->setValue(plan.repetitions);
    m_precision->setValue(plan.precisionPercent);
    m_maxRepetitions->setValue(plan.maxRepetitions);
    m_maxRepetitions->setEnabled(plan.precisionPercent > 0);
    m_pause->setValue(plan.pauseSeconds);
    m_order->setCurrentIndex(m_order->findData(static_cast<int>(plan.order)));
    m_loading = false;

    m_levelsError->setMessage({});
    m_rateLevelsError->setMessage({});
    m_cpusError->setMessage({});
    updateLevelRows();
    const auto checked = app::validateSweepPlan(plan);
    m_planError->setMessage(checked ? QString() : checked.error().message);
    m_valid = checked.ok();
    m_duration->setEnabled(plan.limit == PointLimit::Duration);
    m_requests->setEnabled(plan.limit == PointLimit::Requests);
    updateOrderExplanation();
    updateEstimate();
}

void SweepPage::followDocument() {
    // Our own edits come back equal; a plan changed elsewhere (a file opened) reloads.
    if (m_document->session().plan != m_plan)
        loadPlan(m_document->session().plan);
    else
        updateEstimate(); // targets may have come or gone
}

void SweepPage::applyFields() {
    if (m_loading || !m_document)
        return;
    m_duration->setEnabled(m_byDuration->isChecked());
    m_requests->setEnabled(m_byRequests->isChecked());

    SweepPlan plan = m_plan;
    plan.levelKind = static_cast<app::SweepLevelKind>(m_levelKind->currentData().toInt());
    const bool byRate = plan.levelKind == app::SweepLevelKind::Rate;
    const bool byConcurrency = plan.levelKind == app::SweepLevelKind::Concurrency;
    // Only the levels that will run can make the plan invalid (a capacity plan has none).
    const QString levelsProblem =
        byRate ? takeParsed(parseRateLevels(m_rateLevels->text()), plan.rateLevels)
        : byConcurrency
            ? takeParsed(parseConcurrencyLevels(m_levels->text()), plan.concurrencyLevels)
            : QString();
    m_rateLevelsError->setMessage(byRate ? levelsProblem : QString());
    m_levelsError->setMessage(byConcurrency ? levelsProblem : QString());
    plan.capacity = m_capacityFields->plan();
    plan.rateConnections = m_rateConnections->value();
    plan.arrival = static_cast<engine::Arrival>(m_arrival->currentData().toInt());
    plan.timerSlackUs = m_timerSlack->value();
    plan.wakeCoalescing = m_wakeCoalescing->isChecked();
    plan.profile = m_profile->isChecked();
    const QString cpusProblem = takeParsed(app::parseCpuList(m_cpus->text()), plan.cpus);
    m_cpusError->setMessage(cpusProblem);

    plan.limit = m_byRequests->isChecked() ? PointLimit::Requests : PointLimit::Duration;
    plan.durationSeconds = m_duration->value();
    plan.requestsPerPoint = static_cast<uint64_t>(m_requests->value());
    plan.threads = m_threads->value();
    plan.warmupSeconds = m_warmup->value();
    plan.repetitions = m_repetitions->value();
    plan.precisionPercent = m_precision->value();
    plan.maxRepetitions = m_maxRepetitions->value();
    m_maxRepetitions->setEnabled(plan.precisionPercent > 0);
    plan.pauseSeconds = m_pause->value();
    plan.order = static_cast<SweepOrder>(m_order->currentData().toInt());

    const auto checked = app::validateSweepPlan(plan);
    m_planError->setMessage(levelsProblem.isEmpty() && cpusProblem.isEmpty() && !checked
                                ? checked.error().message
                                : QString());
    m_valid = levelsProblem.isEmpty() && cpusProblem.isEmpty() && checked.ok();
    if (!m_valid) {
        updateEstimate();
        return;
    }
    m_plan = plan;
    SessionEdits::of(m_document)->setPlan(plan);
    updateEstimate(); // also when setPlan saw no change
}

void SweepPage::updateLevelRows() {
    const auto kind = static_cast<app::SweepLevelKind>(m_levelKind->currentData().toInt());
    // A capacity search runs fixed-rate steps: the rate rows but the levels.
    for (QWidget* row : std::as_const(m_concurrencyRows))
        m_loadForm->setRowVisible(row, kind == app::SweepLevelKind::Concurrency);
    for (QWidget* row : std::as_const(m_rateRows))
        m_loadForm->setRowVisible(row, kind != app::SweepLevelKind::Concurrency);
    m_loadForm->setRowVisible(m_rateLevelsRow, kind == app::SweepLevelKind::Rate);
    for (QWidget* row : std::as_const(m_capacityRows))
        m_loadForm->setRowVisible(row, kind == app::SweepLevelKind::Capacity);
    for (QWidget* row : std::as_const(m_limitRows))
        m_loadForm->setRowVisible(row, kind != app::SweepLevelKind::Capacity);
}

void SweepPage::updateOrderExplanation() {
    const auto order = static_cast<SweepOrder>(m_order->currentData().toInt());
    m_orderExplanation->setText(
        order == SweepOrder::Interleaved
            ? tr("At each level, repetition by repetition, every target once. Drift of the "
                 "machine over the sweep (heat, other load) falls on all modes alike.")
            : tr("Target by target, each through all levels and repetitions: what running "
                 "the tool by hand once per mode amounts to. Drift can pass for a difference "
                 "between modes."));
}

void SweepPage::updateEstimate() {
    const app::Session& session = m_document->session();
    // The estimate always describes the plan the session holds.
    const SweepPlan& plan = session.plan;

    QString warning;
    const bool byRate = plan.levelKind == app::SweepLevelKind::Rate;
    // A capacity search's steps are as long as its objective needs, whatever the limit.
    if (plan.levelKind != app::SweepLevelKind::Capacity && plan.limit == PointLimit::Requests &&
        (byRate || !plan.concurrencyLevels.empty())) {
        const int highest = byRate ? plan.rateConnections
                                   : *std::max_element(plan.concurrencyLevels.begin(),
                                                       plan.concurrencyLevels.end());
        if (plan.requestsPerPoint < static_cast<uint64_t>(highest))
            warning = tr("Level %1 needs at least %1 requests per point").arg(highest);
        const bool stream =
            std::any_of(session.targets.begin(), session.targets.end(), [](const auto& t) {
                return t.protocol == app::TargetProtocol::TcpStream ||
                       t.protocol == app::TargetProtocol::UdpStream;
            });
        if (stream && warning.isEmpty())
            warning = tr("Stream targets send without replies: they need a duration");
    }
    m_limitWarning->setMessage(warning);

    // The estimate and the list of points read every result: a hidden page
    // (the window shows another) catches up when shown, so that opening a
    // session of ten thousand results does not build them, twice, meanwhile.
    if (!isVisible()) {
        m_estimateStale = true;
        return;
    }
    m_estimateStale = false;
    m_estimate->showSession(session);
}

void SweepPage::showEvent(QShowEvent* event) {
    if (m_estimateStale)
        updateEstimate();
    QWidget::showEvent(event);
}

} // namespace loadscope::ui
