#include "ui/run/run_page.h"

#include "app/session/metric.h"
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "engine/progress.h"
#include "ui/common/chart_style.h"
#include "ui/common/remembered_columns.h"
#include "ui/common/table_copy.h"
#include "ui/run/live_point_charts.h"
#include "ui/run/run_log_model.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

namespace loadscope::ui {

namespace {

constexpr int kProgressSteps = 1000; // per point

app::TargetProtocol protocolOf(const app::Session& session, const app::SweepPoint& point) {
    const app::Target* target = session.findTarget(point.targetId);
    return target ? target->protocol : app::TargetProtocol::Http;
}

// "Measuring: 1200 transactions, 0 failed", in the words of the point's protocol.
QString measuringText(const engine::Progress& progress, app::TargetProtocol protocol) {
    switch (protocol) {
    case app::TargetProtocol::Memcache:
        return RunPage::tr("Measuring: %1 operations, %2 failed")
            .arg(progress.complete)
            .arg(progress.failed);
    case app::TargetProtocol::TcpRr:
        return RunPage::tr("Measuring: %1 transactions, %2 failed")
            .arg(progress.complete)
            .arg(progress.failed);
    case app::TargetProtocol::TcpStream:
        return RunPage::tr("Measuring: %1 s").arg(progress.elapsedSeconds, 0, 'f', 1);
    case app::TargetProtocol::Http:
        break;
    }
    return RunPage::tr("Measuring: %1 requests, %2 failed")
        .arg(progress.complete)
        .arg(progress.failed);
}

} // namespace

RunPage::RunPage(app::SessionDocument* document, app::SweepRunner* runner, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_runner(runner) {
    m_startButton =
        new QPushButton(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Start"));
    m_startButton->setObjectName(QStringLiteral("startButton"));
    m_startButton->setToolTip(tr("Run every point of the sweep from the beginning"));
    m_stopButton =
        new QPushButton(QIcon::fromTheme(QStringLiteral("media-playback-stop")), tr("S&top"));
    m_stopButton->setObjectName(QStringLiteral("stopButton"));
    m_stopButton->setToolTip(tr("Stop the sweep; finished points are kept"));
    m_resumeButton =
        new QPushButton(QIcon::fromTheme(QStringLiteral("media-seek-forward")), tr("&Resume"));
    m_resumeButton->setObjectName(QStringLiteral("resumeButton"));
    m_resumeButton->setToolTip(tr("Run only the points that have no result yet"));
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("runStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);

    m_pointLabel = new QLabel(tr("No sweep running"));
    m_pointLabel->setObjectName(QStringLiteral("pointLabel"));
    m_pointLabel->setTextFormat(Qt::PlainText);
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("sweepProgress"));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QStringLiteral("%p%"));

    m_charts = new LivePointCharts;
    m_logModel = new RunLogModel(this);
    m_log = new QTableView;
    m_log->setObjectName(QStringLiteral("runLog"));
    m_log->setModel(m_logModel);
    m_log->verticalHeader()->hide();
    m_log->verticalHeader()->setDefaultSectionSize(m_log->verticalHeader()->minimumSectionSize() +
                                                   4);
    m_log->setAlternatingRowColors(true);
    m_log->setWordWrap(false);
    new RememberedColumns(m_log, QStringLiteral("run/logColumns"), RunLogModel::NoteColumn,
                          RememberedColumns::Fill::MayShrink);
    installTsvCopy(m_log);
    // Follow the newest point.
    connect(m_logModel, &QAbstractItemModel::rowsInserted, m_log,
            [this] { m_log->scrollToBottom(); });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_startButton);
    buttons->addWidget(m_stopButton);
    buttons->addWidget(m_resumeButton);
    buttons->addSpacing(12);
    buttons->addWidget(m_status, 1);

    auto* pointRow = new QHBoxLayout;
    pointRow->addWidget(m_pointLabel, 1);
    pointRow->addWidget(m_progress, 1);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_charts);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(buttons);
    layout->addLayout(pointRow);
    layout->addWidget(splitter, 1);

    connect(m_startButton, &QPushButton::clicked, this, &RunPage::start);
    connect(m_stopButton, &QPushButton::clicked, this, &RunPage::stop);
    connect(m_resumeButton, &QPushButton::clicked, this, &RunPage::resume);
    // The same three for the window's Run menu and toolbar, with the keys IDEs use.
    const auto action = [this](QPushButton* button, const QString& text, const QKeySequence& key,
                               const char* name, void (RunPage::*slot)()) {
        auto* made = new QAction(button->icon(), text, this);
        made->setObjectName(QString::fromLatin1(name));
        made->setShortcut(key);
        made->setToolTip(QStringLiteral("%1 (%2)").arg(button->toolTip(),
                                                       key.toString(QKeySequence::NativeText)));
        button->setToolTip(made->toolTip());
        connect(made, &QAction::triggered, this, slot);
        return made;
    };
    m_startAction = action(m_startButton, tr("&Start Sweep"), QKeySequence(Qt::Key_F5),
                           "startAction", &RunPage::start);
    m_stopAction = action(m_stopButton, tr("S&top Sweep"), QKeySequence(Qt::SHIFT | Qt::Key_F5),
                          "stopAction", &RunPage::stop);
    m_resumeAction = action(m_resumeButton, tr("&Resume Sweep"),
                            QKeySequence(Qt::CTRL | Qt::Key_F5), "resumeAction", &RunPage::resume);

    connect(m_runner, &app::SweepRunner::runningChanged, this, &RunPage::updateButtons);
    connect(m_runner, &app::SweepRunner::statusChanged, this,
            [this](const QString& message) { showStatus(message); });
    connect(m_runner, &app::SweepRunner::pointStarted, this, &RunPage::pointStarted);
    connect(m_runner, &app::SweepRunner::progressAvailable, this, &RunPage::progressAvailable);
    connect(m_runner, &app::SweepRunner::pointFinished, this, &RunPage::pointFinished);
    connect(m_runner, &app::SweepRunner::pointFailed, this, &RunPage::pointFailed);
    connect(m_runner, &app::SweepRunner::precisionFinished, this,
            [this](int, bool, const QString& message) { showStatus(message); });
    connect(m_runner, &app::SweepRunner::autosaveFailed, this, [this](const QString& error) {
        showStatus(tr("Could not save the session: %1").arg(error), true);
    });
    connect(m_document, &app::SessionDocument::sessionChanged, this, &RunPage::updateButtons);
    connect(m_document, &app::SessionDocument::sessionChanged, this, &RunPage::followProtocols);
    connect(m_document, &app::SessionDocument::resultsChanged, this, &RunPage::updateButtons);
    connect(m_document, &app::SessionDocument::sessionReplaced, this, &RunPage::sessionReplaced);
    followProtocols();
    updateButtons();
}

RunPage::~RunPage() = default;

void RunPage::start() {
    if (m_busy || m_asking || m_runner->isRunning())
        return;
    if (m_launchCheck && !m_launchCheck(tr("Start")))
        return;
    Q_EMIT launchAccepted();
    if (m_document->session().results.empty()) {
        launch(true);
        return;
    }
    // Asked without a nested event loop: the answer arrives as a signal.
    auto* box = new QMessageBox(QMessageBox::Question, tr("Start the Sweep Again"),
                                tr("The session holds %n result(s). Starting again discards "
                                   "them; Resume runs only the points still missing.",
                                   nullptr, int(m_document->session().results.size())),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("discardResultsQuestion"));
    QPushButton* discard = box->addButton(tr("&Discard and Start"), QMessageBox::DestructiveRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QDialog::finished, this, [this, box, discard] {
        m_asking = false;
        if (box->clickedButton() == discard)
            launch(true);
        else
            updateButtons();
    });
    m_asking = true;
    updateButtons();
    box->open();
}

void RunPage::resume() {
    if (m_busy || m_asking || m_runner->isRunning() || !m_resumeButton->isEnabled())
        return;
    if (m_launchCheck && !m_launchCheck(tr("Resume")))
        return;
    Q_EMIT launchAccepted();
    launch(false);
}

void RunPage::launch(bool fresh) {
    QCoro::connect(runSweep(fresh), this,
                   [this](const app::SweepOutcome& outcome) { sweepFinished(outcome); });
}

void RunPage::stop() {
    if (!m_runner->isRunning())
        return;
    m_stopping = true;
    showStatus(tr("Stopping…"));
    m_runner->cancel();
    updateButtons();
}

QCoro::Task<app::SweepOutcome> RunPage::runSweep(bool fresh) {
    m_busy = true;
    updateButtons();
    if (fresh) {
        m_document->clearResults();
        m_logModel->clear();
    }
    showStatus(fresh ? tr("Starting the sweep…") : tr("Resuming the sweep…"));
    // From here on only the runner is touched: the page may be gone when the
    // sweep ends, and QCoro::connect() drops the outcome then.
    app::SweepRunner* runner = m_runner;
    co_return co_await runner->run();
}

void RunPage::pointStarted(const app::SweepPoint& point, int pointCount) {
    m_currentPoint = point.index;
    m_pointCount = pointCount;
    m_pointLabel->setText(pointText(point));
    m_progress->setRange(0, std::max(1, pointCount) * kProgressSteps);
    m_progress->setValue(point.index * kProgressSteps);

    const app::Session& session = m_document->session();
    const app::Target* target = session.findTarget(point.targetId);
    const QString name = target ? target->displayName() : tr("unknown target");
    const double planned =
        session.plan.limit == app::PointLimit::Duration ? session.plan.durationSeconds : 0;
    const app::TargetProtocol protocol = target ? target->protocol : app::TargetProtocol::Http;
    const app::Metric rate = app::primaryMetric(protocol);
    const QString level =
        point.rate > 0 ? tr("%1 req/s").arg(point.rate) : tr("c=%1").arg(point.concurrency);
    m_charts->startPoint(
        tr("%1 at %2").arg(name, level), target ? targetColour(*target) : QColor(0x0072b2), planned,
        LivePointCharts::Rate{app::metricLabel(rate, protocol), app::metricUnit(rate, protocol),
                              rate == app::Metric::Throughput});
}

void RunPage::progressAvailable(const app::SweepPoint& point,
                                const std::shared_ptr<const engine::Progress>& progress) {
    if (!progress || point.index != m_currentPoint)
        return;
    m_charts->addSnapshot(*progress);
    double fraction = 0;
    if (progress->targetSeconds > 0)
        fraction = progress->elapsedSeconds / progress->targetSeconds;
    else if (progress->target > 0)
        fraction = double(progress->complete + progress->failed) / double(progress->target);
    fraction = std::clamp(fraction, 0.0, 1.0);
    m_progress->setValue(point.index * kProgressSteps + int(fraction * kProgressSteps));
    if (progress->warmingUp)
        showStatus(tr("Warming up…"));
    else if (!m_stopping)
        showStatus(measuringText(*progress, protocolOf(m_document->session(), point)));
}

void RunPage::pointFinished(const app::SweepPoint& point, const app::PointResult& result) {
    const app::Target* target = m_document->session().findTarget(point.targetId);
    m_logModel->appendFinished(point, m_pointCount, target ? target->displayName() : QString(),
                               target ? targetColour(*target) : QColor(), result);
    m_progress->setValue((point.index + 1) * kProgressSteps);
}

void RunPage::pointFailed(const app::SweepPoint& point, const QString& error) {
    const app::Target* target = m_document->session().findTarget(point.targetId);
    m_logModel->appendFailed(point, m_pointCount, target ? target->displayName() : QString(),
                             target ? targetColour(*target) : QColor(), error);
}

void RunPage::sweepFinished(const app::SweepOutcome& outcome) {
    m_busy = false;
    m_stopping = false;
    m_currentPoint = -1;
    switch (outcome.status) {
    case app::SweepOutcome::Status::Completed:
        m_progress->setValue(m_progress->maximum());
        m_pointLabel->setText(tr("Sweep finished"));
        // Where repeat-until-tight gave up stays said after the sweep.
        showStatus(tr("Finished: %n point(s) measured", nullptr, outcome.pointsRun) +
                       (outcome.pointsSkipped > 0
                            ? tr(", %n already done", nullptr, outcome.pointsSkipped)
                            : QString()) +
                       (outcome.notPinnedDown.isEmpty()
                            ? QString()
                            : tr(". Not pinned down: %1")
                                  .arg(outcome.notPinnedDown.join(QStringLiteral("; ")))),
                   !outcome.notPinnedDown.isEmpty());
        break;
    case app::SweepOutcome::Status::Cancelled:
        m_pointLabel->setText(tr("Sweep stopped"));
        // The cancelled point stored nothing: the bar shows the points that have a result.
        m_progress->setValue(donePointCount() * kProgressSteps);
        showStatus(
            tr("Stopped after %n point(s); Resume runs the rest.", nullptr, outcome.pointsRun));
        break;
    case app::SweepOutcome::Status::Failed:
        m_pointLabel->setText(tr("Sweep failed"));
        showStatus(tr("Sweep failed: %1").arg(outcome.error), true);
        break;
    }
    updateButtons();
}

void RunPage::updateButtons() {
    const bool running = m_busy || m_asking || m_runner->isRunning();
    const app::Session& session = m_document->session();
    QString cannotRun;
    bool cannotRunIsError = false;
    if (session.targets.empty()) {
        cannotRun = tr("Add targets on the Targets page to run a sweep.");
    } else if (const auto plan = app::validateSweepPlan(session.plan); !plan) {
        cannotRun = plan.error().message;
    } else if (std::any_of(session.targets.begin(), session.targets.end(),
                           [](const app::Target& target) { return target.lab.has_value(); })) {
        // Said before Start, not at its failure: where the window looked for the CLI.
        if (const auto cli = m_runner->labCli(); !cli) {
            cannotRun = tr("The lab cannot be started: %1").arg(cli.error().message);
            cannotRunIsError = true;
        }
    }
    const bool runnable = cannotRun.isEmpty();
    // Points and done points once: this runs on every change of the session.
    const std::vector<app::SweepPoint> points = app::sweepPoints(session);
    const app::DonePoints done(session);
    const auto doneCount = size_t(std::count_if(
        points.begin(), points.end(), [&done](const auto& point) { return done.contains(point); }));
    const bool anyDone = doneCount > 0;
    const bool anyMissing = doneCount < points.size();
    m_startButton->setEnabled(!running && runnable);
    m_resumeButton->setEnabled(!running && runnable && anyDone && anyMissing);
    m_stopButton->setEnabled(m_runner->isRunning() && !m_stopping);
    m_startAction->setEnabled(m_startButton->isEnabled());
    m_resumeAction->setEnabled(m_resumeButton->isEnabled());
    m_stopAction->setEnabled(m_stopButton->isEnabled());
    // A hint says why nothing can run; once something can, it must not stay.
    if (running || m_currentPoint >= 0)
        return;
    if (!runnable) {
        showStatus(cannotRun, cannotRunIsError);
        m_statusIsHint = true;
    } else if (m_statusIsHint) {
        showStatus(QString());
    }
}

void RunPage::showStatus(const QString& text, bool error) {
    m_statusIsHint = false;
    m_status->setText(text);
    // A style sheet change re-polishes the label: only when the kind changes,
    // not at every snapshot.
    if (error != m_statusIsError) {
        m_statusIsError = error;
        m_status->setStyleSheet(error ? QStringLiteral("color: #b02020;") : QString());
    }
}

void RunPage::sessionReplaced() {
    // The window replaces no session while a sweep runs; what shows is the one before's.
    m_logModel->clear();
    m_currentPoint = -1;
    m_pointCount = 0;
    m_pointLabel->setText(tr("No sweep running"));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(0);
    followProtocols();
    showStatus(QString());
    updateButtons();
}

int RunPage::donePointCount() const {
    const app::Session& session = m_document->session();
    const app::DonePoints done(session);
    const std::vector<app::SweepPoint> points = app::sweepPoints(session);
    return int(std::count_if(points.begin(), points.end(),
                             [&done](const auto& point) { return done.contains(point); }));
}

void RunPage::followProtocols() {
    const app::Session& session = m_document->session();
    std::optional<app::TargetProtocol> common;
    bool mixed = false;
    for (const app::Target& target : session.targets) {
        if (common && *common != target.protocol)
            mixed = true;
        common = target.protocol;
    }
    const app::TargetProtocol protocol = common.value_or(app::TargetProtocol::Http);
    m_logModel->setRateLabel(mixed ? tr("Rate (/s)")
                                   : app::metricLabel(app::Metric::RequestsPerSecond, protocol));
    if (m_currentPoint < 0 && m_logModel->rowCount() == 0) {
        const app::Metric rate = app::primaryMetric(protocol);
        m_charts->clear(LivePointCharts::Rate{app::metricLabel(rate, protocol),
                                              app::metricUnit(rate, protocol),
                                              rate == app::Metric::Throughput});
    }
}

QString RunPage::pointText(const app::SweepPoint& point) const {
    const app::Session& session = m_document->session();
    const app::Target* target = session.findTarget(point.targetId);
    const QString level = point.rate > 0
                              ? tr("%1 req/s at c=%2").arg(point.rate).arg(point.concurrency)
                              : tr("c=%1").arg(point.concurrency);
    return tr("Point %1 of %2: %3, %4, run %5 of %6")
        .arg(point.index + 1)
        .arg(m_pointCount)
        .arg(target ? target->displayName() : tr("unknown target"), level)
        .arg(point.repetition + 1)
        .arg(session.plan.precisionPercent > 0 ? tr("up to %1").arg(session.plan.maxRepetitions)
                                               : QString::number(session.plan.repetitions));
}

} // namespace loadscope::ui
