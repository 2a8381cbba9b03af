#include "ui/shell/session_edits.h"

#include "app/session/session_document.h"

#include <QApplication>
#include <QUndoCommand>
#include <QUndoStack>
#include <QWidget>
#include <algorithm>
#include <utility>

namespace loadscope::ui {

namespace {

using app::SessionDocument;
using app::Target;

enum CommandId { EditTargetId = 1, SetPlanId = 2 };

// The widget the user types in: consecutive edits from it make one step.
quintptr editingField() {
    return quintptr(QApplication::focusWidget());
}

std::vector<app::PointResult> resultsOf(const app::Session& session,
                                        const std::vector<QUuid>& targets) {
    std::vector<app::PointResult> taken;
    for (const app::PointResult& result : session.results) {
        if (std::find(targets.begin(), targets.end(), result.targetId) != targets.end())
            taken.push_back(result);
    }
    return taken;
}

class EditTargetCommand : public QUndoCommand {
public:
    EditTargetCommand(SessionDocument* document, Target before, Target after)
        : m_document(document)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_field(editingField()) {
        setText(QObject::tr("Edit “%1”").arg(m_after.displayName()));
    }
    int id() const override { return EditTargetId; }
    void redo() override {
        if (m_document)
            m_document->updateTarget(m_after);
    }
    void undo() override {
        if (m_document)
            m_document->updateTarget(m_before);
    }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const EditTargetCommand*>(other);
        if (next->m_after.id != m_after.id || next->m_field != m_field || m_field == 0)
            return false;
        m_after = next->m_after;
        // Typed and typed back: nothing is left to undo.
        setObsolete(m_after == m_before);
        return true;
    }

private:
    QPointer<SessionDocument> m_document;
    Target m_before;
    Target m_after;
    quintptr m_field;
};

class SetPlanCommand : public QUndoCommand {
public:
    SetPlanCommand(SessionDocument* document, app::SweepPlan before, app::SweepPlan after)
        : m_document(document)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_field(editingField()) {
        setText(QObject::tr("Edit Sweep Plan"));
    }
    int id() const override { return SetPlanId; }
    void redo() override {
        if (m_document)
            m_document->setPlan(m_after);
    }
    void undo() override {
        if (m_document)
            m_document->setPlan(m_before);
    }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const SetPlanCommand*>(other);
        if (next->m_field != m_field || m_field == 0)
            return false;
        m_after = next->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

private:
    QPointer<SessionDocument> m_document;
    app::SweepPlan m_before;
    app::SweepPlan m_after;
    quintptr m_field;
};

// Adds targets at the end (and sets the lab, for lab targets); undone, takes them away with
// whatever results they got meanwhile, which a redo puts back.
class AddTargetsCommand : public QUndoCommand {
public:
    AddTargetsCommand(SessionDocument* document, std::vector<Target> targets,
                      std::optional<app::LabSetup> lab, const QString& text)
        : m_document(document)
        , m_targets(std::move(targets))
        , m_baselineBefore(document->session().baselineTargetId)
        , m_labBefore(document->session().lab)
        , m_labAfter(std::move(lab)) {
        setText(text);
    }
    void redo() override {
        if (!m_document)
            return;
        for (const Target& target : m_targets)
            m_document->addTarget(target);
        m_document->putResults(std::exchange(m_results, {}));
        if (m_labAfter)
            m_document->setLab(*m_labAfter);
    }
    void undo() override {
        if (!m_document)
            return;
        std::vector<QUuid> ids;
        for (const Target& target : m_targets)
            ids.push_back(target.id);
        m_results = resultsOf(m_document->session(), ids);
        for (auto id = ids.rbegin(); id != ids.rend(); ++id)
            m_document->removeTarget(*id);
        if (m_labAfter)
            m_document->setLab(m_labBefore);
        m_document->setBaseline(m_baselineBefore);
    }

private:
    QPointer<SessionDocument> m_document;
    std::vector<Target> m_targets; // with their ids, so that a redo brings back the same
    QUuid m_baselineBefore;
    std::optional<app::LabSetup> m_labBefore;
    std::optional<app::LabSetup> m_labAfter; // nullopt: the lab is left alone
    std::vector<app::PointResult> m_results;
};

// Removes a target with its results; undone, puts both back where they were.
class RemoveTargetCommand : public QUndoCommand {
public:
    RemoveTargetCommand(SessionDocument* document, const Target& target)
        : m_document(document)
        , m_target(target) {
        setText(QObject::tr("Remove “%1”").arg(target.displayName()));
    }
    void redo() override {
        if (!m_document)
            return;
        const app::Session& session = m_document->session();
        m_baselineBefore = session.baselineTargetId;
        m_index = 0;
        while (m_index < int(session.targets.size()) &&
               session.targets[size_t(m_index)].id != m_target.id)
            ++m_index;
        m_results = resultsOf(session, {m_target.id});
        m_document->removeTarget(m_target.id);
    }
    void undo() override {
        if (!m_document)
            return;
        m_document->addTarget(m_target);
        m_document->moveTarget(int(m_document->session().targets.size()) - 1, m_index);
        m_document->putResults(std::exchange(m_results, {}));
        m_document->setBaseline(m_baselineBefore);
    }

private:
    QPointer<SessionDocument> m_document;
    Target m_target;
    int m_index = 0;
    QUuid m_baselineBefore;
    std::vector<app::PointResult> m_results;
};

class MoveTargetCommand : public QUndoCommand {
public:
    MoveTargetCommand(SessionDocument* document, int from, int to)
        : m_document(document)
        , m_from(from)
        , m_to(to) {
        const auto& targets = document->session().targets;
        const QString name = from >= 0 && from < int(targets.size())
                                 ? targets[size_t(from)].displayName()
                                 : QString();
        setText(to < from ? QObject::tr("Move “%1” Up").arg(name)
                          : QObject::tr("Move “%1” Down").arg(name));
    }
    void redo() override {
        if (m_document)
            m_document->moveTarget(m_from, m_to);
    }
    void undo() override {
        if (m_document)
            m_document->moveTarget(m_to, m_from);
    }

private:
    QPointer<SessionDocument> m_document;
    int m_from;
    int m_to;
};

class SetBaselineCommand : public QUndoCommand {
public:
    SetBaselineCommand(SessionDocument* document, const QUuid& id)
        : m_document(document)
        , m_before(document->session().baselineTargetId)
        , m_after(id) {
        const Target* target = document->session().findTarget(id);
        setText(
            QObject::tr("Set “%1” as Baseline").arg(target ? target->displayName() : QString()));
    }
    void redo() override {
        if (m_document)
            m_document->setBaseline(m_after);
    }
    void undo() override {
        if (m_document)
            m_document->setBaseline(m_before);
    }

private:
    QPointer<SessionDocument> m_document;
    QUuid m_before;
    QUuid m_after;
};

} // namespace

SessionEdits::SessionEdits(app::SessionDocument* document)
    : QObject(document)
    , m_document(document) {
    setObjectName(QStringLiteral("sessionEdits"));
    m_stack = new QUndoStack(this);
    // Another session: the steps of the one before would edit targets it does not have.
    connect(document, &SessionDocument::sessionReplaced, m_stack, &QUndoStack::clear);
}

SessionEdits* SessionEdits::of(app::SessionDocument* document) {
    if (auto* edits = document->findChild<SessionEdits*>(QString(), Qt::FindDirectChildrenOnly))
        return edits;
    return new SessionEdits(document);
}

void SessionEdits::updateTarget(const app::Target& target) {
    const Target* before = m_document->session().findTarget(target.id);
    if (!before || *before == target)
        return;
    m_stack->push(new EditTargetCommand(m_document, *before, target));
}

QUuid SessionEdits::addTarget(app::Target target, const QString& what) {
    if (target.id.isNull() || m_document->session().findTarget(target.id))
        target.id = QUuid::createUuid();
    const QUuid id = target.id;
    const QString text = QStringLiteral("%1 “%2”").arg(what, target.displayName());
    m_stack->push(new AddTargetsCommand(m_document, {std::move(target)}, std::nullopt, text));
    return id;
}

void SessionEdits::addLabTargets(std::vector<app::Target> targets, const app::LabSetup& lab,
                                 const app::SweepPlan& plan) {
    for (Target& target : targets) {
        if (target.id.isNull())
            target.id = QUuid::createUuid();
    }
    m_stack->beginMacro(tr("Add Lab Targets"));
    m_stack->push(
        new AddTargetsCommand(m_document, std::move(targets), lab, tr("Add Lab Targets")));
    setPlan(plan);
    m_stack->endMacro();
}

void SessionEdits::removeTarget(const QUuid& id) {
    if (const Target* target = m_document->session().findTarget(id))
        m_stack->push(new RemoveTargetCommand(m_document, *target));
}

void SessionEdits::moveTarget(int from, int to) {
    const int count = int(m_document->session().targets.size());
    if (from < 0 || from >= count || to < 0 || to >= count || from == to)
        return;
    m_stack->push(new MoveTargetCommand(m_document, from, to));
}

void SessionEdits::setBaseline(const QUuid& id) {
    if (!m_document->session().findTarget(id) || m_document->session().baselineTargetId == id)
        return;
    m_stack->push(new SetBaselineCommand(m_document, id));
}

void SessionEdits::setPlan(const app::SweepPlan& plan) {
    if (m_document->session().plan == plan)
        return;
    m_stack->push(new SetPlanCommand(m_document, m_document->session().plan, plan));
}

} // namespace loadscope::ui
