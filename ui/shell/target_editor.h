#pragma once

#include "app/session/target.h"
#include "ui/common/field_error.h"

#include <QPointer>
#include <QUuid>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

class ColourButton;
class FieldError;
class ProtocolOptionsForm;

// Edits one target of the document as the user types: every change that
// leaves all fields usable goes to the document at once; while a field is
// invalid it keeps what the user typed, its message shows next to it, the
// session keeps the last good target, and whatever would use the target
// (Start, Save, Export, Probe) is refused naming the field (fieldInError()).
class TargetEditor : public QWidget {
    Q_OBJECT

public:
    explicit TargetEditor(app::SessionDocument* document, QWidget* parent = nullptr);

    // The target to edit; a null id empties and disables the editor.
    void setTargetId(const QUuid& id);
    QUuid targetId() const { return m_target.id; }
    // False while some field shows an error.
    bool isValid() const { return m_valid; }
    // The first field that shows an error, with its name and message; nullopt while every
    // field is usable (or no target is edited).
    std::optional<FieldInError> fieldInError() const;

Q_SIGNALS:
    void validityChanged(bool valid);

private:
    void buildCommonFields();
    // Where the server's CPU is read: its PID or cgroup, common to every protocol.
    QWidget* buildServerCpuFields();
    // Reads the server CPU fields into `edited`; false while one is unusable.
    bool applyServerCpuFields(app::Target& edited);
    // The session's hosts the load comes from and the server runs on.
    QWidget* buildHostFields();
    bool applyHostFields(app::Target& edited);
    void loadTarget(const app::Target& target);
    void followDocument();
    // Reads every field into a copy of the target and stores it when usable.
    void applyFields();
    void protocolChosen();
    void setValid(bool valid);
    ProtocolOptionsForm* currentForm() const;

    QPointer<app::SessionDocument> m_document;
    app::Target m_target; // what the fields showed when they last were valid or loaded
    bool m_valid = true;
    bool m_loading = false;

    QLabel* m_labNote = nullptr; // what a lab target is, shown for one
    QLineEdit* m_name = nullptr;
    QComboBox* m_mode = nullptr;
    QLineEdit* m_customMode = nullptr;
    ColourButton* m_colour = nullptr;
    QComboBox* m_protocol = nullptr;
    QStackedWidget* m_forms = nullptr;
    FieldError* m_targetError = nullptr;
    QLineEdit* m_serverPid = nullptr;
    FieldError* m_serverPidError = nullptr;
    QLineEdit* m_serverCgroup = nullptr;
    FieldError* m_serverCgroupError = nullptr;
    QLabel* m_serverCpuWarning = nullptr;
    QLineEdit* m_loadFrom = nullptr;
    FieldError* m_loadFromError = nullptr;
    QLineEdit* m_serverHost = nullptr;
    FieldError* m_serverHostError = nullptr;
    QLineEdit* m_serverProcess = nullptr;
    FieldError* m_serverProcessError = nullptr;
    QLineEdit* m_serverContainer = nullptr;
    FieldError* m_serverContainerError = nullptr;
};

} // namespace loadscope::ui
