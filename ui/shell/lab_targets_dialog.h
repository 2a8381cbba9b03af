#pragma once

#include "app/common/background_job.h"
#include "app/common/result.h"
#include "app/lab/lab_targets.h"
#include "app/lab/mode_check.h"
#include "app/remote/host_agents.h"
#include "app/remote/host_check.h"
#include "app/remote/ssh_command.h"

#include <QCoroTask>
#include <QDialog>
#include <QPointer>
#include <vector>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QListWidget;
class QSpinBox;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

class FieldError;
class LabTopologySketch;

// What this machine can build and run: the answer of app::lab::checkModes() and
// checkServers(), or a made-up one in a test.
struct LabAvailability {
    app::Result<std::vector<app::lab::ModeAvailability>> modes =
        std::vector<app::lab::ModeAvailability>{};
    std::vector<app::lab::ServerAvailability> servers;
};

// "Add lab targets…": tick the lab's modes, pick its server, the wire's MTU and where the
// load's client runs (across the wire or on the server host), and get one
// lab target per mode (app::lab::labTargets()) added to the document as one edit to undo.
// Modes and servers this machine cannot build or run are greyed, saying why; a mode the
// session has a lab target in is ticked and greyed, saying which; a mode built a way worth
// knowing says how ("embedded proxy; docker-proxy is not installed"), as `lab check` does.
class LabTargetsDialog : public QDialog {
    Q_OBJECT

public:
    explicit LabTargetsDialog(app::SessionDocument* document, QWidget* parent = nullptr);

    // Asks the machine on a worker thread (the checks build throwaway sandboxes and run the
    // servers' -v), or the host chosen to build on with `lab check` over ssh; the list says
    // so meanwhile and fills in when the answer arrives.
    void checkMachine();
    // How a host chosen to build on is reached (the user's ssh config by default).
    void setSshOptions(const app::SshOptions& options) { m_ssh = options; }
    // The session's host the lab is built on; empty: this machine.
    QString hostName() const;
    // What a host's check says the lab can build there.
    static LabAvailability availabilityOf(const app::HostCheck& checked);
    // Shows `availability`; what checkMachine() ends with, and what a test calls instead.
    void setAvailability(const LabAvailability& availability);
    bool isChecking() const { return m_check.isRunning(); }

    // What is ticked and picked now; the modes the session has lab targets in are shown
    // ticked and greyed, and are not part of it.
    app::lab::LabTargetChoice choice() const;
    void setModeChecked(app::lab::LabMode mode, bool checked);
    void setServer(app::lab::LabServerKind kind);

    // Adds the targets and the lab to the document and closes; stays open saying why not.
    void accept() override;

Q_SIGNALS:
    void availabilityChanged();

private:
    QCoro::Task<> checkHost(app::Host host, quint64 round);
    void fillModes();
    void fillServers();
    void choiceChanged();
    std::vector<app::lab::LabMode> presentModes() const;

    QPointer<app::SessionDocument> m_document;
    app::BackgroundJob m_check{this};
    LabAvailability m_availability;
    bool m_known = false; // m_availability is an answer, not the default

    app::SshOptions m_ssh;
    quint64 m_hostRound = 0; // a later check or answer drops a host's answer on its way
    QComboBox* m_host = nullptr;
    QListWidget* m_modes = nullptr;
    QComboBox* m_server = nullptr;
    QSpinBox* m_mtu = nullptr;
    QComboBox* m_client = nullptr; // where the load's client runs (app::LabClientPlacement)
    LabTopologySketch* m_sketch = nullptr;
    QLabel* m_status = nullptr;
    FieldError* m_error = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace loadscope::ui
