#include "ui/shell/targets_page.h"

#include "app/agent/agent_safety.h"
#include "app/session/session_document.h"
#include "app/sweep/target_probe.h"
#include "ui/common/field_error.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/plural.h"
#include "ui/common/remembered_columns.h"
#include "ui/common/vertical_scroll_area.h"
#include "ui/shell/hosts_dialog.h"
#include "ui/shell/lab_targets_dialog.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/target_table_model.h"

#include <QAbstractButton>
#include <QAction>
#include <QCoroTask>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

namespace loadscope::ui {

using app::DeploymentMode;
using app::Target;

TargetsPage::TargetsPage(app::SessionDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document) {
    m_model = new TargetTableModel(m_document, this);
    createActions();

    // Built in reading order, which is also the Tab order: session, list, editor.
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildSessionFields());

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(buildTargetList());
    m_editors = new QStackedWidget;
    m_editors->setObjectName(QStringLiteral("targetEditors"));
    m_editor = newEditor();
    auto* editorScroll = new VerticalScrollArea;
    editorScroll->setObjectName(QStringLiteral("targetEditorScroll"));
    editorScroll->setForm(m_editors);
    splitter->addWidget(editorScroll);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(m_document, &app::SessionDocument::sessionChanged, this, &TargetsPage::followDocument);
    // Selection, not the current index: the view moves the current index
    // before it selects, and the editor must see the finished selection.
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        showEditorFor(selectedTargetId());
        updateActions();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_model->rowCount() > 0)
            m_table->selectRow(0);
        else
            showEditorFor({});
        updateActions();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex&, int first) { m_table->selectRow(first); });
    connect(m_document, &app::SessionDocument::sessionReplaced, this,
            &TargetsPage::sessionReplaced);

    followDocument();
    if (m_model->rowCount() > 0)
        m_table->selectRow(0);
    updateActions();
}

TargetEditor* TargetsPage::newEditor() {
    auto* editor = new TargetEditor(m_document);
    m_editors->addWidget(editor);
    connect(editor, &TargetEditor::validityChanged, this, [this] {
        updateActions();
        // A kept draft made usable again from elsewhere (an undo) has nothing left to keep.
        QTimer::singleShot(0, this, &TargetsPage::dropSettledEditors);
    });
    return editor;
}

void TargetsPage::showEditorFor(const QUuid& id) {
    if (m_editor->targetId() == id)
        return;
    TargetEditor* kept = nullptr;
    for (TargetEditor* editor : editors()) {
        if (editor != m_editor && editor->targetId() == id && !id.isNull())
            kept = editor;
    }
    if (kept) {
        m_editor = kept;
    } else if (!m_editor->isValid() && !m_editor->targetId().isNull()) {
        // The editor left keeps what the user typed (and its error) until they come back:
        // Start and Save refuse while it shows one (firstFieldInError()).
        m_editor = newEditor();
        m_editor->setTargetId(id);
    } else {
        m_editor->setTargetId(id);
    }
    m_editors->setCurrentWidget(m_editor);
    dropSettledEditors();
}

QList<TargetEditor*> TargetsPage::editors() const {
    QList<TargetEditor*> all;
    for (int i = 0; i < m_editors->count(); ++i)
        all << qobject_cast<TargetEditor*>(m_editors->widget(i));
    return all;
}

void TargetsPage::dropSettledEditors() {
    for (TargetEditor* editor : editors()) {
        if (editor == m_editor)
            continue;
        const bool gone = !m_document->session().findTarget(editor->targetId());
        if (gone || editor->isValid()) {
            m_editors->removeWidget(editor);
            editor->deleteLater();
        }
    }
}

void TargetsPage::sessionReplaced() {
    // Another session: nothing typed or probed for the one before belongs to it, even where
    // a target of the same id comes back (the same file opened again).
    for (TargetEditor* editor : editors()) {
        if (editor != m_editor) {
            m_editors->removeWidget(editor);
            editor->deleteLater();
        }
    }
    m_editor->setTargetId(selectedTargetId());
    m_probeError->setMessage({});
    m_probeStatus->setText(probeHint());
    updateActions();
}

std::optional<TargetsPage::TargetFieldInError> TargetsPage::firstFieldInError() const {
    // The editor shown first, then the drafts kept, in the table's order.
    QList<TargetEditor*> order{m_editor};
    for (int row = 0; row < m_model->rowCount(); ++row) {
        for (TargetEditor* editor : editors()) {
            if (editor != m_editor && editor->targetId() == m_model->targetId(row))
                order << editor;
        }
    }
    for (TargetEditor* editor : std::as_const(order)) {
        if (auto field = editor->fieldInError()) {
            const app::Target* target = m_document->session().findTarget(editor->targetId());
            return TargetFieldInError{editor->targetId(),
                                      target ? target->displayName() : QString(), *field};
        }
    }
    return std::nullopt;
}

void TargetsPage::showFieldInError(const TargetFieldInError& found) {
    selectTarget(found.targetId);
    focusField(found.field.field);
}

QString TargetsPage::probeHint() {
    return tr("Probe sends one request to the selected target to check that it answers, "
              "before a whole sweep depends on it.");
}

QWidget* TargetsPage::buildSessionFields() {
    auto* box = new QWidget;
    auto* form = new QFormLayout(box);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_sessionName = new QLineEdit;
    m_sessionName->setObjectName(QStringLiteral("sessionNameEdit"));
    m_sessionName->setPlaceholderText(tr("what this session compares"));
    auto* nameLabel = new QLabel(tr("Sess&ion:"));
    nameLabel->setBuddy(m_sessionName);
    form->addRow(nameLabel, m_sessionName);

    m_notes = new QPlainTextEdit;
    m_notes->setObjectName(QStringLiteral("notesEdit"));
    m_notes->setPlaceholderText(tr("How to set the servers up, what the machine was, "
                                   "anything a reader of the results should know"));
    m_notes->setTabChangesFocus(true);
    m_notes->setFixedHeight(m_notes->fontMetrics().lineSpacing() * 4 + 12);
    auto* notesLabel = new QLabel(tr("N&otes:"));
    notesLabel->setBuddy(m_notes);
    form->addRow(notesLabel, m_notes);

    connect(m_sessionName, &QLineEdit::textEdited, m_document, &app::SessionDocument::setName);
    connect(m_notes, &QPlainTextEdit::textChanged, this, [this] {
        if (m_notes->toPlainText() != m_document->session().notes)
            m_document->setNotes(m_notes->toPlainText());
    });
    return box;
}

QWidget* TargetsPage::buildTargetList() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    // A tool bar rather than a row of buttons: in a narrow window the actions that do not fit
    // go behind its extension arrow instead of widening the whole window.
    auto* buttons = new QToolBar;
    buttons->setObjectName(QStringLiteral("targetActionsBar"));
    buttons->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    buttons->setIconSize(QSize(16, 16));
    for (QAction* action : targetActions()) {
        buttons->addAction(action);
        if (action == m_remove || action == m_moveDown || action == m_baseline)
            buttons->addSeparator();
    }
    layout->addWidget(buttons);

    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("targetTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTabKeyNavigation(false);
    m_table->verticalHeader()->hide();
    m_table->setTextElideMode(Qt::ElideMiddle);
    new RememberedColumns(m_table, QStringLiteral("targets/tableColumns"),
                          TargetTableModel::OptionsColumn, RememberedColumns::Fill::MayShrink);
    m_table->setAccessibleName(tr("Targets"));
    layout->addWidget(m_table, 1);

    m_probeStatus = new QLabel;
    m_probeStatus->setObjectName(QStringLiteral("probeStatus"));
    m_probeStatus->setWordWrap(true);
    m_probeStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_probeStatus->setText(probeHint());
    m_probeStatus->setToolTip(
        wrappedToolTip(tr("What one request told about the server: its software (the "
                          "Server header), the status and the document length, the bytes "
                          "of the response body, as ab reports them.")));
    m_probeError = new FieldError;
    m_probeError->setObjectName(QStringLiteral("probeError"));
    m_probeError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_probeStatus);
    layout->addWidget(m_probeError);
    return panel;
}

void TargetsPage::createActions() {
    const auto make = [this](const QString& text, const QString& icon, const QString& tip,
                             const QList<QKeySequence>& keys, auto slot) {
        auto* action = new QAction(QIcon::fromTheme(icon), text, this);
        action->setShortcuts(keys);
        // Only while the page has focus: Delete in another page's field stays its own.
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        QString shortcuts;
        for (const QKeySequence& key : keys)
            shortcuts += (shortcuts.isEmpty() ? QString() : QStringLiteral(", ")) +
                         key.toString(QKeySequence::NativeText);
        action->setToolTip(shortcuts.isEmpty() ? tip
                                               : QStringLiteral("%1 (%2)").arg(tip, shortcuts));
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        return action;
    };
    m_add =
        make(tr("Add"), QStringLiteral("list-add"), tr("Add a target for the next deployment mode"),
             {QKeySequence(Qt::Key_Insert), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N)},
             &TargetsPage::addTarget);
    m_addLab = make(tr("Add Lab Targets…"), QStringLiteral("network-workgroup"),
                    tr("Add targets the deployment lab builds: one per mode, same server"), {},
                    &TargetsPage::addLabTargets);
    m_hosts = make(tr("Hosts…"), QStringLiteral("network-server"),
                   tr("Your machines reached over ssh: to send load from, to measure a server "
                      "on, to build the lab on"),
                   {}, &TargetsPage::editHosts);
    m_duplicate =
        make(tr("Duplicate"), QStringLiteral("edit-copy"), tr("Add a copy of the selected target"),
             {QKeySequence(Qt::CTRL | Qt::Key_D)}, &TargetsPage::duplicateTarget);
    m_remove = make(tr("Remove"), QStringLiteral("list-remove"),
                    tr("Remove the selected target and its results"), {QKeySequence::Delete},
                    &TargetsPage::removeTarget);
    m_moveUp = make(tr("Up"), QStringLiteral("go-up"), tr("Move the selected target up"),
                    {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Up)}, [this] { moveTarget(-1); });
    m_moveDown =
        make(tr("Down"), QStringLiteral("go-down"), tr("Move the selected target down"),
             {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down)}, [this] { moveTarget(1); });
    m_baseline = make(tr("Set as Baseline"), QStringLiteral("starred"),
                      tr("Compare every other target against the selected one"),
                      {QKeySequence(Qt::CTRL | Qt::Key_B)}, &TargetsPage::setBaseline);
    m_probe = make(tr("Probe"), QStringLiteral("network-wired"),
                   tr("Send one request to the selected target and show what answers"),
                   {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)}, &TargetsPage::probeTarget);
    m_add->setObjectName(QStringLiteral("addTargetAction"));
    m_addLab->setObjectName(QStringLiteral("addLabTargetsAction"));
    m_hosts->setObjectName(QStringLiteral("hostsAction"));
    m_duplicate->setObjectName(QStringLiteral("duplicateTargetAction"));
    m_remove->setObjectName(QStringLiteral("removeTargetAction"));
    m_moveUp->setObjectName(QStringLiteral("moveTargetUpAction"));
    m_moveDown->setObjectName(QStringLiteral("moveTargetDownAction"));
    m_baseline->setObjectName(QStringLiteral("baselineAction"));
    m_probe->setObjectName(QStringLiteral("probeAction"));
}

QList<QAction*> TargetsPage::targetActions() const {
    return {m_add,    m_addLab,   m_hosts,    m_duplicate, m_remove,
            m_moveUp, m_moveDown, m_baseline, m_probe};
}

QUuid TargetsPage::selectedTargetId() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QUuid() : m_model->targetId(rows.front().row());
}

void TargetsPage::selectTarget(const QUuid& id) {
    const int row = m_model->rowOf(id);
    if (row >= 0)
        m_table->selectRow(row);
}

void TargetsPage::followDocument() {
    const app::Session& session = m_document->session();
    if (m_sessionName->text() != session.name)
        m_sessionName->setText(session.name);
    if (m_notes->toPlainText() != session.notes) {
        const QSignalBlocker blocker(m_notes);
        m_notes->setPlainText(session.notes);
    }
    dropSettledEditors();
    updateActions();
}

void TargetsPage::updateActions() {
    const QUuid id = selectedTargetId();
    const int row = m_model->rowOf(id);
    const bool selected = row >= 0;
    const app::Target* baseline = m_document->session().baseline();
    m_duplicate->setEnabled(selected);
    m_remove->setEnabled(selected);
    m_moveUp->setEnabled(selected && row > 0);
    m_moveDown->setEnabled(selected && row + 1 < m_model->rowCount());
    m_baseline->setEnabled(selected && !(baseline && baseline->id == id));
    m_probe->setEnabled(selected && !m_probing && m_editor->isValid());
}

void TargetsPage::addTarget() {
    const app::Session& session = m_document->session();
    // The first mode nobody measures yet: adding targets walks through them.
    DeploymentMode mode = DeploymentMode::Custom;
    for (DeploymentMode candidate : app::deploymentModes()) {
        const bool used = std::any_of(session.targets.begin(), session.targets.end(),
                                      [candidate](const Target& t) { return t.mode == candidate; });
        if (!used) {
            mode = candidate;
            break;
        }
    }
    const int index = static_cast<int>(session.targets.size());
    Target target = app::makeTarget(app::deploymentModeId(mode), mode, index);
    if (mode == DeploymentMode::Custom)
        target.name = tr("target %1").arg(index + 1);
    // The same server in another mode is the usual next target: keep its protocol and options.
    const Target* model = session.findTarget(selectedTargetId());
    if (!model && !session.targets.empty())
        model = &session.targets.back();
    if (model) {
        target.protocol = model->protocol;
        target.address = model->address;
        target.http = model->http;
        target.memcache = model->memcache;
        target.tcpRr = model->tcpRr;
        target.tcpStream = model->tcpStream;
    }
    SessionEdits::of(m_document)->addTarget(target, tr("Add"));
    m_editor->setFocus();
}

void TargetsPage::addLabTargets() {
    // Open, not exec(): the machine is checked on a worker thread while the dialog shows.
    auto* dialog = new LabTargetsDialog(m_document, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->checkMachine();
    dialog->open();
}

void TargetsPage::editHosts() {
    // Open, not exec(): a Check runs ssh in the background while the dialog shows.
    auto* dialog = new HostsDialog(m_document, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void TargetsPage::duplicateTarget() {
    const Target* selected = m_document->session().findTarget(selectedTargetId());
    if (!selected)
        return;
    Target copy = *selected;
    copy.id = QUuid::createUuid();
    copy.name = tr("%1 copy").arg(selected->displayName());
    const auto& colours = app::defaultTargetColours();
    copy.colour = colours[m_document->session().targets.size() % colours.size()];
    SessionEdits::of(m_document)->addTarget(copy, tr("Duplicate"));
}

void TargetsPage::removeTarget() {
    const QUuid id = selectedTargetId();
    const Target* target = m_document->session().findTarget(id);
    if (!target)
        return;
    const int row = m_model->rowOf(id);
    const auto removeNow = [this, id, row] {
        SessionEdits::of(m_document)->removeTarget(id);
        if (m_model->rowCount() > 0)
            m_table->selectRow(std::min(row, m_model->rowCount() - 1));
    };
    const auto& results = m_document->session().results;
    const auto measured =
        std::count_if(results.begin(), results.end(),
                      [id](const app::PointResult& r) { return r.targetId == id; });
    if (measured == 0) {
        removeNow();
        return;
    }
    // Results cannot be measured back cheaply: removing them is worth a question,
    // asked without blocking the event loop.
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Remove Target"),
        plural(measured, tr("Remove “%2” and its result?"), tr("Remove “%2” and its %1 results?"))
            .arg(target->displayName()),
        QMessageBox::Cancel, this);
    box->addButton(tr("Remove"), QMessageBox::DestructiveRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [box, removeNow](QAbstractButton* button) {
        if (box->buttonRole(button) == QMessageBox::DestructiveRole)
            removeNow();
    });
    box->open();
}

void TargetsPage::moveTarget(int offset) {
    const int row = m_model->rowOf(selectedTargetId());
    if (row < 0)
        return;
    SessionEdits::of(m_document)->moveTarget(row, row + offset);
    updateActions();
}

void TargetsPage::setBaseline() {
    SessionEdits::of(m_document)->setBaseline(selectedTargetId());
}

void TargetsPage::probeTarget() {
    const Target* target = m_document->session().findTarget(selectedTargetId());
    if (!target || m_probing || !m_editor->isValid())
        return;
    // A lab target is not probed from here: the gate says why in one line.
    if (auto allowed = app::checkConnection(*target, app::Connector::ThisProcess); !allowed) {
        m_probeStatus->clear();
        m_probeError->setMessage(allowed.error().message);
        Q_EMIT probeFinished(target->id, allowed.error().message, false);
        return;
    }
    m_probing = true;
    updateActions();
    m_probeError->setMessage({});
    m_probeStatus->setText(tr("Probing %1 at %2…").arg(target->displayName(), target->endpoint()));
    // The probe owns its copy of the target; if this page is gone when it
    // ends, the result is dropped rather than delivered to a dead widget.
    const QUuid id = target->id;
    QCoro::connect(app::probeTarget(*target), this,
                   [this, id](const app::ProbeResult& result) { showProbeResult(id, result); });
}

void TargetsPage::showProbeResult(const QUuid& targetId, const app::ProbeResult& result) {
    m_probing = false;
    updateActions();
    const app::Target* target = m_document->session().findTarget(targetId);
    const QString name = target ? target->displayName() : tr("the removed target");
    if (result.ok) {
        // The summary ends with the time the probe took: said once.
        m_probeStatus->setText(tr("%1 answers: %2").arg(name, result.summary()));
    } else {
        m_probeStatus->clear();
        m_probeError->setMessage(tr("%1: %2").arg(name, result.error));
    }
    Q_EMIT probeFinished(targetId, result.ok ? result.summary() : result.error, result.ok);
}

} // namespace loadscope::ui
