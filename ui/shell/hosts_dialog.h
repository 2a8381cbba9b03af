#pragma once

#include "app/remote/host_check.h"
#include "app/remote/ssh_command.h"
#include "app/session/host.h"

#include <QCoroTask>
#include <QDialog>
#include <QPointer>
#include <vector>

class QDialogButtonBox;
class QPushButton;
class QTableWidget;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

class FieldError;

// "Hosts…": the session's hosts (name, SSH destination, the command that runs
// Loadscope there) as a table to edit, and Check: each host reached with ssh
// as a sweep would reach it, its answer (reachable, authenticated, version,
// CPUs, clock offset, what the lab builds there) in its row. The checks run
// side by side in the background (ssh processes read as they answer): the
// window stays live, and the dialog can be closed while they run. OK stores
// the hosts in the document, or stays open saying why not.
class HostsDialog : public QDialog {
    Q_OBJECT

public:
    explicit HostsDialog(app::SessionDocument* document, QWidget* parent = nullptr);

    // How the checks reach the hosts (the user's ssh config by default).
    void setSshOptions(const app::SshOptions& options) { m_ssh = options; }

    // The hosts as the table holds them now.
    std::vector<app::Host> hosts() const;
    void addHost(const app::Host& host);
    // Checks every host of the table; checkFinished() follows when all answered.
    void check();
    bool isChecking() const { return m_checking > 0; }
    // The status column of row `row`: what its last check said.
    QString statusOf(int row) const;

    void accept() override;

Q_SIGNALS:
    void checkFinished();

private:
    QCoro::Task<> checkRow(int row, app::Host host, quint64 round);
    void setRow(int row, const app::Host& host);
    void removeSelected();

    QPointer<app::SessionDocument> m_document;
    app::SshOptions m_ssh;
    int m_checking = 0;
    quint64 m_round = 0; // a new check drops the answers of the last
    QTableWidget* m_table = nullptr;
    QPushButton* m_checkButton = nullptr;
    FieldError* m_error = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace loadscope::ui
