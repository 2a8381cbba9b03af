#pragma once

#include "app/session/sweep_plan.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace loadscope::ui {

// The Sweep page's fields of a capacity plan (app::CapacityPlan): the latency
// objective (a percentile and its bound, optionally the failed share at most
// and the achieved share of the offered rate at least) and how the search
// goes (precision, step budget, shortest and longest step). Every field holds
// a value its range allows; the plan's own rules (the longest step not
// shorter than the shortest) are the page's to check. edited() after any
// change the user makes; load() changes nothing the page hears of.
class CapacityPlanFields : public QWidget {
    Q_OBJECT

public:
    explicit CapacityPlanFields(QWidget* parent = nullptr);

    void load(const app::CapacityPlan& plan);
    app::CapacityPlan plan() const;

Q_SIGNALS:
    void edited();

private:
    void updateEnabled();

    bool m_loading = false;
    QComboBox* m_percentile = nullptr;
    QDoubleSpinBox* m_bound = nullptr;
    QCheckBox* m_judgeFailed = nullptr;
    QDoubleSpinBox* m_maxFailed = nullptr;
    QCheckBox* m_judgeAchieved = nullptr;
    QDoubleSpinBox* m_minAchieved = nullptr;
    QDoubleSpinBox* m_precision = nullptr;
    QSpinBox* m_maxSteps = nullptr;
    QDoubleSpinBox* m_minStep = nullptr;
    QDoubleSpinBox* m_maxStep = nullptr;
};

} // namespace loadscope::ui
