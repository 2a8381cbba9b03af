#pragma once

#include "app/session/session.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

class QUndoStack;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

// The edits a user makes to the open session by hand: its targets (add, duplicate, remove,
// reorder, edit), the baseline, the plan and the lab targets added together. Each goes to the
// document through one QUndoStack, so that Edit ▸ Undo and Redo take it back and forth;
// results a removal takes with its target come back with it. One per document (of()), which
// every page that edits shares; emptied when another session replaces the document's.
//
// Typing is one step per field: consecutive edits of a target, or of the plan, made in the
// same field (the widget that had the focus) merge into one.
class SessionEdits : public QObject {
    Q_OBJECT

public:
    // The document's, made on first use as its child.
    static SessionEdits* of(app::SessionDocument* document);

    QUndoStack* stack() const { return m_stack; }

    // `target` replaces the one with its id.
    void updateTarget(const app::Target& target);
    // Adds at the end; `what` names the step ("Add", "Duplicate"). Returns the id it has.
    QUuid addTarget(app::Target target, const QString& what);
    // Adds every target at the end and sets the lab and the plan (lab targets
    // turn the CPU profile on), as one step.
    void addLabTargets(std::vector<app::Target> targets, const app::LabSetup& lab,
                       const app::SweepPlan& plan);
    // Removes the target and its results.
    void removeTarget(const QUuid& id);
    void moveTarget(int from, int to);
    void setBaseline(const QUuid& id);
    void setPlan(const app::SweepPlan& plan);

private:
    explicit SessionEdits(app::SessionDocument* document);

    QPointer<app::SessionDocument> m_document;
    QUndoStack* m_stack = nullptr;
};

} // namespace loadscope::ui
