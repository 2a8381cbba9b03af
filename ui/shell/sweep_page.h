#pragma once

#include "app/session/sweep_plan.h"
#include "ui/common/field_error.h"

#include <QList>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

class CapacityPlanFields;
class FieldError;
class SweepEstimatePanel;

// The Sweep page: what every target is run with (concurrency levels, or
// rate levels at a connection count with their arrival model, or a capacity
// search at a latency objective (capacity_plan_fields.h); how
// long each point lasts, threads, pinning, warm-up, repetitions, pause,
// order) and how long that will take. Every change that makes a valid plan
// goes to the document at once; while a field is invalid it keeps what the
// user typed, its message shows next to it, the session keeps the last valid
// plan, and Start, Save and Export are refused naming the field
// (fieldInError()).
class SweepPage : public QWidget {
    Q_OBJECT

public:
    explicit SweepPage(app::SessionDocument* document, QWidget* parent = nullptr);

    // The estimate as shown, e.g. "27 points · about 1 min 21 s".
    QString estimateText() const;
    bool isValid() const { return m_valid; }
    // The first field that shows an error, with its name and message; nullopt while the
    // plan shown is the session's.
    std::optional<FieldInError> fieldInError() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    QWidget* buildPlanFields();
    void loadPlan(const app::SweepPlan& plan);
    void followDocument();
    void applyFields();
    void updateEstimate();
    void updateOrderExplanation();
    void updateLevelRows(); // the rows of the chosen level kind only

    QPointer<app::SessionDocument> m_document;
    app::SweepPlan m_plan; // what the fields showed when they last were valid or loaded
    bool m_loading = false;
    bool m_valid = true;
    mutable bool m_estimateStale = false; // the estimate waits for the page to be shown

    QComboBox* m_levelKind = nullptr;
    QLineEdit* m_levels = nullptr;
    FieldError* m_levelsError = nullptr;
    QLineEdit* m_rateLevels = nullptr;
    FieldError* m_rateLevelsError = nullptr;
    QSpinBox* m_rateConnections = nullptr;
    QComboBox* m_arrival = nullptr;
    QSpinBox* m_timerSlack = nullptr;
    QCheckBox* m_wakeCoalescing = nullptr;
    QCheckBox* m_profile = nullptr;
    QFormLayout* m_loadForm = nullptr;
    QList<QWidget*> m_concurrencyRows;  // row labels, shown for concurrency levels
    QList<QWidget*> m_rateRows;         // row labels, shown for rate levels and capacity
    QWidget* m_rateLevelsRow = nullptr; // shown for rate levels only
    CapacityPlanFields* m_capacityFields = nullptr;
    QList<QWidget*> m_capacityRows; // shown for capacity only
    QList<QWidget*> m_limitRows;    // a point's length: not a capacity plan's (its steps choose)
    QRadioButton* m_byDuration = nullptr;
    QRadioButton* m_byRequests = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QDoubleSpinBox* m_requests = nullptr;
    FieldError* m_limitWarning = nullptr;
    QSpinBox* m_threads = nullptr;
    QLineEdit* m_cpus = nullptr;
    FieldError* m_cpusError = nullptr;
    QDoubleSpinBox* m_warmup = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QDoubleSpinBox* m_precision = nullptr; // 0: off
    QSpinBox* m_maxRepetitions = nullptr;
    QDoubleSpinBox* m_pause = nullptr;
    QComboBox* m_order = nullptr;
    QLabel* m_orderExplanation = nullptr;
    FieldError* m_planError = nullptr;

    SweepEstimatePanel* m_estimate = nullptr;
};

} // namespace loadscope::ui
