#pragma once

#include <QGroupBox>

class QLabel;
class QListWidget;

namespace loadscope::app {
struct Session;
}

namespace loadscope::ui {

// The Sweep page's "Estimate" box: how long the session's plan takes over its
// targets (a range with a precision, "more than" where a point limited by a
// request count has no measured rate yet), how many points that is and how
// many are still to run, and the points in the order they run.
class SweepEstimatePanel : public QGroupBox {
    Q_OBJECT

public:
    explicit SweepEstimatePanel(QWidget* parent = nullptr);

    // Describes the plan `session` holds, over its targets and results.
    void showSession(const app::Session& session);
    // The estimate as shown, e.g. "27 points · about 1 min 21 s".
    QString estimateText() const;

private:
    void showPointOrder(const app::Session& session);

    QLabel* m_estimateTime = nullptr;
    QLabel* m_estimatePoints = nullptr;
    QLabel* m_estimateRemaining = nullptr;
    QListWidget* m_pointOrder = nullptr;
};

} // namespace loadscope::ui
