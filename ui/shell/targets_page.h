#pragma once

#include "ui/common/field_error.h"

#include <QList>
#include <QPointer>
#include <QUuid>
#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedWidget;
class QTableView;

namespace loadscope::app {
class SessionDocument;
struct ProbeResult;
} // namespace loadscope::app

namespace loadscope::ui {

class FieldError;
class TargetEditor;
class TargetTableModel;

// The Targets page: the session's name and notes, the table of targets with
// the actions on them (add, add lab targets, the session's hosts, duplicate, remove, reorder,
// baseline, probe) and
// the editor of the selected one.
class TargetsPage : public QWidget {
    Q_OBJECT

public:
    explicit TargetsPage(app::SessionDocument* document, QWidget* parent = nullptr);

    // The actions on targets, for the window's Edit menu.
    QList<QAction*> targetActions() const;
    QUuid selectedTargetId() const;
    void selectTarget(const QUuid& id);

    TargetTableModel* model() const { return m_model; }
    // The editor of the selected target. An editor left while a field showed an error is
    // kept, with what the user typed, until they come back to its target (or it is removed,
    // or another session replaces this one).
    TargetEditor* editor() const { return m_editor; }
    bool isProbing() const { return m_probing; }

    // A field of some target's editor that shows an error, the shown editor's first.
    struct TargetFieldInError {
        QUuid targetId;
        QString targetName;
        FieldInError field;
    };
    std::optional<TargetFieldInError> firstFieldInError() const;
    // Selects the target and puts the cursor in the field.
    void showFieldInError(const TargetFieldInError& found);

Q_SIGNALS:
    // A probe started from this page ended (for tests and the status bar).
    void probeFinished(const QUuid& targetId, const QString& summary, bool ok);

private:
    QWidget* buildSessionFields();
    QWidget* buildTargetList();
    void createActions();
    void followDocument();
    void updateActions();
    TargetEditor* newEditor();
    void showEditorFor(const QUuid& id);
    QList<TargetEditor*> editors() const;
    // Lets go of kept editors whose target is gone or whose fields are usable again.
    void dropSettledEditors();
    void sessionReplaced();
    static QString probeHint();

    void addTarget();
    void addLabTargets();
    void editHosts();
    void duplicateTarget();
    void removeTarget();
    void moveTarget(int offset);
    void setBaseline();
    void probeTarget();
    void showProbeResult(const QUuid& targetId, const app::ProbeResult& result);

    QPointer<app::SessionDocument> m_document;
    TargetTableModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QStackedWidget* m_editors = nullptr; // the one shown and the drafts kept
    TargetEditor* m_editor = nullptr;
    QLineEdit* m_sessionName = nullptr;
    QPlainTextEdit* m_notes = nullptr;
    QLabel* m_probeStatus = nullptr;
    FieldError* m_probeError = nullptr;
    bool m_probing = false;

    QAction* m_add = nullptr;
    QAction* m_addLab = nullptr;
    QAction* m_hosts = nullptr;
    QAction* m_duplicate = nullptr;
    QAction* m_remove = nullptr;
    QAction* m_moveUp = nullptr;
    QAction* m_moveDown = nullptr;
    QAction* m_baseline = nullptr;
    QAction* m_probe = nullptr;
};

} // namespace loadscope::ui
