#include "ui/shell/sweep_estimate_panel.h"

#include "app/session/capacity_search.h"
#include "app/session/session.h"
#include "app/stats/sweep_estimate.h"
#include "ui/common/colour_button.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/plural.h"
#include "ui/shell/sweep_plan_text.h"

#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace loadscope::ui {

SweepEstimatePanel::SweepEstimatePanel(QWidget* parent)
    : QGroupBox(tr("Estimate"), parent) {
    auto* column = new QVBoxLayout(this);
    m_estimateTime = new QLabel;
    m_estimateTime->setObjectName(QStringLiteral("estimateTime"));
    QFont big = m_estimateTime->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    m_estimateTime->setFont(big);
    m_estimateTime->setToolTip(wrappedToolTip(
        tr("Warm-up and measured time of every point plus the pauses between points. "
           "Points limited by a request count are estimated from the rates already "
           "measured in this session.")));
    m_estimatePoints = new QLabel;
    m_estimatePoints->setObjectName(QStringLiteral("estimatePoints"));
    m_estimatePoints->setWordWrap(true);
    m_estimateRemaining = new QLabel;
    m_estimateRemaining->setObjectName(QStringLiteral("estimateRemaining"));
    m_estimateRemaining->setWordWrap(true);
    column->addWidget(m_estimateTime);
    column->addWidget(m_estimatePoints);
    column->addWidget(m_estimateRemaining);
    column->addSpacing(8);

    auto* orderLabel = new QLabel(tr("Points in the order they run:"));
    m_pointOrder = new QListWidget;
    m_pointOrder->setObjectName(QStringLiteral("pointOrderList"));
    m_pointOrder->setSelectionMode(QAbstractItemView::NoSelection);
    m_pointOrder->setFocusPolicy(Qt::NoFocus);
    m_pointOrder->setUniformItemSizes(true);
    m_pointOrder->setAccessibleName(tr("Points in the order they run"));
    column->addWidget(orderLabel);
    column->addWidget(m_pointOrder, 1);
}

QString SweepEstimatePanel::estimateText() const {
    return m_estimateTime->text() + QStringLiteral(" · ") + m_estimatePoints->text();
}

void SweepEstimatePanel::showPointOrder(const app::Session& session) {
    const std::vector<app::SweepPoint> points = app::sweepPoints(session);
    const app::DonePoints donePoints(session);
    // Enough to see the order at work; a sweep of thousands needs no list of thousands.
    constexpr size_t kShown = 200;
    m_pointOrder->clear();
    for (size_t i = 0; i < std::min(points.size(), kShown); ++i) {
        const app::SweepPoint& point = points[i];
        const app::Target* target = session.findTarget(point.targetId);
        const bool done = donePoints.contains(point);
        const QString level = session.plan.levelKind == app::SweepLevelKind::Capacity
                                  ? tr("capacity search at %1 connections").arg(point.concurrency)
                              : point.rate > 0 ? tr("%1 req/s").arg(point.rate)
                                               : tr("concurrency %1").arg(point.concurrency);
        auto* item = new QListWidgetItem(tr("%1.  %2 at %3, repetition %4%5")
                                             .arg(point.index + 1)
                                             .arg(target ? target->displayName() : QString(), level)
                                             .arg(point.repetition + 1)
                                             .arg(done ? tr("  (done)") : QString()),
                                         m_pointOrder);
        if (target)
            item->setIcon(colourSwatch(QColor(target->colour), 12));
        if (done)
            item->setForeground(palette().brush(QPalette::PlaceholderText));
    }
    if (points.size() > kShown)
        new QListWidgetItem(tr("… and %1 more").arg(points.size() - kShown), m_pointOrder);
}

void SweepEstimatePanel::showSession(const app::Session& session) {
    // The estimate always describes the plan the session holds.
    const app::SweepPlan& plan = session.plan;
    const auto targets = static_cast<int>(session.targets.size());
    const bool byRate = plan.levelKind == app::SweepLevelKind::Rate;
    showPointOrder(session);
    if (targets == 0) {
        m_estimateTime->setText(tr("No targets"));
        m_estimatePoints->setText(tr("Add targets on the Targets page to see how long the "
                                     "sweep takes."));
        m_estimateRemaining->clear();
        return;
    }
    const app::SweepEstimate estimate = app::estimateSweep(session);
    const bool unknown = estimate.unknownPoints > 0;
    if (unknown && estimate.unknownPoints == estimate.points)
        m_estimateTime->setText(tr("Unknown"));
    else if (estimate.mostPoints > estimate.points || estimate.mostSeconds > estimate.totalSeconds)
        // A precision ends the sweep anywhere from the least repetitions to
        // the most, a capacity search anywhere in its step budget.
        m_estimateTime->setText(
            (unknown ? tr("more than %1 … %2") : tr("%1 … %2"))
                .arg(formatSeconds(estimate.totalSeconds), formatSeconds(estimate.mostSeconds)));
    else
        m_estimateTime->setText((unknown ? tr("more than %1") : tr("about %1"))
                                    .arg(formatSeconds(estimate.totalSeconds)));

    if (plan.levelKind == app::SweepLevelKind::Capacity) {
        m_estimatePoints->setText(
            plural(estimate.points, tr("1 search: "), tr("%1 searches: ")) +
            plural(targets, tr("1 target"), tr("%1 targets")) + QStringLiteral(" × ") +
            plural(plan.repetitions, tr("1 repetition"), tr("%1 repetitions")) +
            tr(", each a probe and about %1 steps of %2 to %3 (at most %4).")
                .arg(app::typicalCapacitySteps(plan.capacity))
                .arg(formatSeconds(plan.capacity.minStepSeconds),
                     formatSeconds(plan.capacity.maxStepSeconds))
                .arg(plan.capacity.maxSteps));
        m_estimateRemaining->setText(estimate.missingPoints == 0
                                         ? tr("Every search has finished.")
                                         : plural(estimate.missingPoints,
                                                  tr("1 search still to run or finish."),
                                                  tr("%1 searches still to run or finish.")));
        return;
    }
    QString points =
        plural(estimate.points, tr("1 point: "), tr("%1 points: ")) +
        plural(qsizetype(byRate ? plan.rateLevels.size() : plan.concurrencyLevels.size()),
               tr("1 level"), tr("%1 levels")) +
        QStringLiteral(" × ") + plural(targets, tr("1 target"), tr("%1 targets")) +
        QStringLiteral(" × ") + plural(plan.repetitions, tr("1 repetition"), tr("%1 repetitions")) +
        (estimate.mostPoints > estimate.points
             ? tr(", up to %1 points at %2 repetitions until every ratio is known within ±%3 %")
                   .arg(estimate.mostPoints)
                   .arg(plan.maxRepetitions)
                   .arg(plan.precisionPercent)
             : QString()) +
        QLatin1Char('.');
    if (unknown)
        points += QLatin1Char(' ') +
                  plural(estimate.unknownPoints,
                         tr("1 point limited by a request count has no measured rate yet."),
                         tr("%1 points limited by a request count have no measured rate yet."));
    m_estimatePoints->setText(points);

    if (estimate.missingPoints == estimate.points)
        m_estimateRemaining->setText(tr("No point is measured yet."));
    else if (estimate.missingPoints == 0)
        m_estimateRemaining->setText(tr("Every point is measured."));
    else
        m_estimateRemaining->setText(
            plural(estimate.missingPoints, tr("1 point still to run"),
                   tr("%1 points still to run")) +
            (estimate.unknownMissingPoints > 0
                 ? QString()
                 : tr(": about %1").arg(formatSeconds(estimate.remainingSeconds))) +
            QLatin1Char('.'));
}

} // namespace loadscope::ui
