#include "ui/shell/lab_targets_dialog.h"

#include "app/session/session_document.h"
#include "app/sweep/lab_sandbox_command.h"
#include "ui/common/field_error.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/vertical_scroll_area.h"
#include "ui/shell/lab_topology_sketch.h"
#include "ui/shell/session_edits.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <set>

namespace loadscope::ui {

using app::lab::LabMode;
using app::lab::LabServerKind;

namespace {

constexpr int kModeRole = Qt::UserRole + 1;
constexpr int kPresentRole = Qt::UserRole + 2; // the session has this mode's lab target

} // namespace

LabTargetsDialog::LabTargetsDialog(app::SessionDocument* document, QWidget* parent)
    : QDialog(parent)
    , m_document(document) {
    setObjectName(QStringLiteral("labTargetsDialog"));
    setWindowTitle(tr("Add Lab Targets"));

    auto* intro = new QLabel(
        tr("The deployment lab builds each mode in a sandbox of its own and runs the same "
           "server in every one, behind one veth wire. One target is added per ticked mode."));
    intro->setWordWrap(true);

    m_modes = new QListWidget;
    m_modes->setObjectName(QStringLiteral("labModeList"));
    m_modes->setAccessibleName(tr("Lab modes"));
    // A mode's reason wraps under its title instead of running off the list's edge.
    m_modes->setWordWrap(true);
    m_modes->setUniformItemSizes(false);
    m_modes->setResizeMode(QListView::Adjust);
    m_modes->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_modes->setMinimumWidth(m_modes->fontMetrics().averageCharWidth() * 56);
    m_modes->setMinimumHeight(m_modes->fontMetrics().lineSpacing() * 18);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("labCheckStatus"));
    m_status->setWordWrap(true);

    m_server = new QComboBox;
    m_server->setObjectName(QStringLiteral("labServerCombo"));
    for (LabServerKind kind : app::lab::labServerKinds())
        m_server->addItem(app::lab::labServerKindId(kind), int(kind));
    m_server->setToolTip(wrappedToolTip(
        tr("The server the lab runs in every mode: the embedded HTTP, echo (TCP request/"
           "response), sink (TCP stream), udp-echo (UDP request/response) or udp-sink (UDP "
           "stream) server, or nginx, Apache or memcached when installed. The targets' "
           "protocol follows from it.")));
    m_mtu = new QSpinBox;
    m_mtu->setObjectName(QStringLiteral("labMtuSpin"));
    m_mtu->setRange(app::kMinLabMtu, app::kMaxLabMtu);
    m_mtu->setSuffix(tr(" bytes"));
    m_mtu->setToolTip(wrappedToolTip(tr("The MTU of the wire between the client and the server "
                                        "host, from %1 to %2; one wire for every lab target")
                                         .arg(app::kMinLabMtu)
                                         .arg(app::kMaxLabMtu)));

    m_client = new QComboBox;
    m_client->setObjectName(QStringLiteral("labClientCombo"));
    m_client->addItem(tr("across the wire"), int(app::LabClientPlacement::Wire));
    m_client->addItem(tr("on the server host"), int(app::LabClientPlacement::ServerHost));
    m_client->setToolTip(wrappedToolTip(
        tr("Where the load's client runs, for every lab target: across the wire from the "
           "server host, or on the server host itself, as a client on a docker host or a "
           "node reaches each mode (the server on 127.0.0.1, a published port on 127.0.0.1 "
           "through docker-proxy or the embedded relay, the host's own address DNATed back). "
           "overlay-vxlan, macvlan, ipvlan and ovs-bridge have no such client.")));

    const app::Session& session = m_document->session();
    m_mtu->setValue(session.lab ? session.lab->mtu : 1500);
    if (session.lab)
        m_client->setCurrentIndex(std::max(0, m_client->findData(int(session.lab->client))));
    // One lab runs one server: start from the one the session's lab targets already use.
    for (const app::Target& target : session.targets) {
        if (!target.lab)
            continue;
        if (auto kind = app::lab::labServerKindFromId(target.lab->server))
            setServer(*kind);
        break;
    }

    m_host = new QComboBox;
    m_host->setObjectName(QStringLiteral("labHostCombo"));
    m_host->addItem(tr("This machine"), QString());
    for (const app::Host& host : session.hosts)
        m_host->addItem(QStringLiteral("%1 (%2)").arg(host.name, host.destination), host.name);
    if (session.lab && !session.lab->host.isEmpty())
        m_host->setCurrentIndex(std::max(0, m_host->findData(session.lab->host)));
    m_host->setToolTip(wrappedToolTip(
        tr("Where the lab is built: this machine, or one of the session's hosts (Targets ▸ "
           "Hosts…), where the sandbox, its servers and the load agent then run over ssh while "
           "this window drives them. One lab for every lab target.")));
    connect(m_host, &QComboBox::currentIndexChanged, this, &LabTargetsDialog::checkMachine);

    auto* form = new QFormLayout;
    auto* hostLabel = new QLabel(tr("&Build on:"));
    hostLabel->setBuddy(m_host);
    form->addRow(hostLabel, m_host);
    auto* serverLabel = new QLabel(tr("&Server:"));
    serverLabel->setBuddy(m_server);
    form->addRow(serverLabel, m_server);
    auto* mtuLabel = new QLabel(tr("Wire &MTU:"));
    mtuLabel->setBuddy(m_mtu);
    form->addRow(mtuLabel, m_mtu);

    m_sketch = new LabTopologySketch;
    // The sketch scrolls within a height of its own: ticking modes never grows the dialog.
    auto* sketchScroll = new VerticalScrollArea;
    sketchScroll->setObjectName(QStringLiteral("labSketchScroll"));
    sketchScroll->setForm(m_sketch);
    sketchScroll->setFixedHeight(m_modes->minimumHeight() +
                                 m_modes->fontMetrics().lineSpacing() * 2);
    m_error = new FieldError;
    m_error->setObjectName(QStringLiteral("labTargetsError"));
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Add Targets"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &LabTargetsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &LabTargetsDialog::reject);

    auto* modesLabel = new QLabel(tr("M&odes:"));
    modesLabel->setBuddy(m_modes);
    auto* modesColumn = new QVBoxLayout;
    modesColumn->addWidget(modesLabel);
    modesColumn->addWidget(m_modes, 1);
    auto* clientRow = new QHBoxLayout;
    auto* clientLabel = new QLabel(tr("&Client:"));
    clientLabel->setBuddy(m_client);
    clientRow->addWidget(clientLabel);
    clientRow->addWidget(m_client, 1);
    modesColumn->addLayout(clientRow);
    modesColumn->addWidget(m_status);
    auto* sketchColumn = new QVBoxLayout;
    sketchColumn->addWidget(new QLabel(tr("The lab:")));
    sketchColumn->addWidget(sketchScroll);
    sketchColumn->addStretch();
    auto* columns = new QHBoxLayout;
    columns->addLayout(modesColumn, 1);
    columns->addLayout(sketchColumn);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(columns, 1);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);

    connect(m_modes, &QListWidget::itemChanged, this, &LabTargetsDialog::choiceChanged);
    connect(m_server, &QComboBox::currentIndexChanged, this, &LabTargetsDialog::choiceChanged);
    connect(m_mtu, &QSpinBox::valueChanged, this, &LabTargetsDialog::choiceChanged);
    connect(m_client, &QComboBox::currentIndexChanged, this, &LabTargetsDialog::choiceChanged);
    fillModes();
    fillServers();
    choiceChanged();
}

QString LabTargetsDialog::hostName() const {
    return m_host->currentData().toString();
}

void LabTargetsDialog::checkMachine() {
    m_known = false;
    fillModes();
    const app::Host* host = m_document ? m_document->session().findHost(hostName()) : nullptr;
    if (host) {
        m_check.cancel();
        QCoro::connect(checkHost(*host, ++m_hostRound), this, [] {});
        return;
    }
    // Computed here: the worker must not ask QCoreApplication.
    // Without one, the embedded servers say that the executable is not known.
    const app::Result<QString> found = app::findCli();
    const std::string cli = found ? found->toStdString() : std::string();
    m_check.start(
        [cli](const app::JobCheck&) {
            return LabAvailability{app::lab::checkModes(), app::lab::checkServers(cli)};
        },
        [this](const LabAvailability& availability) { setAvailability(availability); });
}

QCoro::Task<> LabTargetsDialog::checkHost(app::Host host, quint64 round) {
    QPointer<LabTargetsDialog> alive(this);
    m_status->setText(tr("Checking what the lab can build on %1…").arg(host.name));
    // Made before the co_await: GCC destroys a co_await operand's temporaries twice.
    auto checking = app::checkHostOverSsh(host, m_ssh, true, app::kDefaultMaxClockOffsetMs,
                                          std::chrono::seconds(20));
    const app::HostCheck checked = co_await checking;
    if (!alive || round != m_hostRound)
        co_return;
    setAvailability(availabilityOf(checked));
}

LabAvailability LabTargetsDialog::availabilityOf(const app::HostCheck& checked) {
    LabAvailability availability;
    if (checked.lab.isEmpty()) {
        availability.modes =
            app::invalidInput(checked.error.isEmpty() ? checked.labError : checked.error);
        return availability;
    }
    std::vector<app::lab::ModeAvailability> modes;
    for (const QJsonValue& mode : checked.lab.value(u"modes").toArray()) {
        if (const auto known = app::lab::labModeFromId(mode[u"mode"].toString()))
            modes.push_back({*known, mode[u"available"].toBool(), mode[u"reason"].toString()});
    }
    availability.modes = modes;
    for (const QJsonValue& server : checked.lab.value(u"servers").toArray()) {
        if (const auto kind = app::lab::labServerKindFromId(server[u"server"].toString()))
            availability.servers.push_back(
                {*kind, server[u"available"].toBool(), server[u"detail"].toString()});
    }
    return availability;
}

void LabTargetsDialog::setAvailability(const LabAvailability& availability) {
    m_check.cancel(); // an answer given by hand replaces the one on its way
    ++m_hostRound;
    m_availability = availability;
    m_known = true;
    fillModes();
    fillServers();
    choiceChanged();
    Q_EMIT availabilityChanged();
}

void LabTargetsDialog::fillModes() {
    std::set<LabMode> ticked;
    for (LabMode mode : choice().modes)
        ticked.insert(mode);
    const QSignalBlocker blocker(m_modes);
    m_modes->clear();
    if (!m_known) {
        auto* item = new QListWidgetItem(tr("Checking what this machine can build…"));
        item->setFlags(Qt::NoItemFlags);
        m_modes->addItem(item);
        m_status->clear();
        return;
    }
    const auto& modes = m_availability.modes;
    int available = 0;
    for (LabMode mode : app::lab::labModes()) {
        // Without a sandbox at all every mode is out, for the one reason.
        QString reason = modes ? tr("not checked") : modes.error().message;
        bool can = false;
        if (modes) {
            const auto found = std::find_if(
                modes->begin(), modes->end(),
                [mode](const app::lab::ModeAvailability& a) { return a.mode == mode; });
            if (found != modes->end()) {
                can = found->available;
                reason = found->reason;
            }
        }
        const QString title =
            QStringLiteral("%1 (%2)").arg(app::lab::labModeTitle(mode), app::lab::labModeId(mode));
        // How the mode is built where it can be ("embedded proxy; docker-proxy is not
        // installed"), why not where it cannot: what `lab check` says, in the list.
        const app::Target* present =
            m_document ? app::lab::labTargetOf(m_document->session(), mode) : nullptr;
        QString note = reason;
        if (present)
            note = tr("in the session as “%1”").arg(present->displayName());
        auto* item = new QListWidgetItem(note.isEmpty() ? title : tr("%1 — %2").arg(title, note));
        item->setData(kModeRole, int(mode));
        item->setToolTip(
            wrappedToolTip((reason.isEmpty() ? QString() : reason + QStringLiteral("\n")) +
                           tr("Path from the wire: %1").arg(app::lab::labModePath(mode))));
        if (present) {
            // A mode keeps its one lab target: shown as part of the lab, not to be added again.
            item->setData(kPresentRole, true);
            item->setFlags(Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Checked);
            if (can)
                ++available;
        } else if (can) {
            ++available;
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(ticked.contains(mode) ? Qt::Checked : Qt::Unchecked);
        } else {
            item->setFlags(Qt::ItemIsUserCheckable); // greyed, and cannot be ticked
            item->setCheckState(Qt::Unchecked);
        }
        m_modes->addItem(item);
    }
    m_status->setText(modes ? tr("This machine can build %1 of the lab's %2 modes.")
                                  .arg(available)
                                  .arg(app::lab::labModes().size())
                            : tr("No lab can be built here: %1").arg(modes.error().message));
}

void LabTargetsDialog::fillServers() {
    auto* model = qobject_cast<QStandardItemModel*>(m_server->model());
    for (int row = 0; row < m_server->count(); ++row) {
        const auto kind = LabServerKind(m_server->itemData(row).toInt());
        const QString id = app::lab::labServerKindId(kind);
        const auto found =
            std::find_if(m_availability.servers.begin(), m_availability.servers.end(),
                         [kind](const app::lab::ServerAvailability& s) { return s.kind == kind; });
        const bool known = m_known && found != m_availability.servers.end();
        const bool can = !known || found->available;
        m_server->setItemText(row, known ? tr("%1 — %2").arg(id, found->detail) : id);
        m_server->setItemData(row, known ? found->detail : QString(), Qt::ToolTipRole);
        if (model)
            model->item(row)->setEnabled(can);
    }
    // Never leave a server picked that cannot run: the first one that can.
    if (model && !model->item(m_server->currentIndex())->isEnabled()) {
        for (int row = 0; row < m_server->count(); ++row) {
            if (model->item(row)->isEnabled()) {
                m_server->setCurrentIndex(row);
                break;
            }
        }
    }
}

app::lab::LabTargetChoice LabTargetsDialog::choice() const {
    app::lab::LabTargetChoice choice;
    choice.server = LabServerKind(m_server->currentData().toInt());
    choice.mtu = m_mtu->value();
    choice.client = app::LabClientPlacement(m_client->currentData().toInt());
    for (int row = 0; row < m_modes->count(); ++row) {
        const QListWidgetItem* item = m_modes->item(row);
        if (item->data(kModeRole).isValid() && !item->data(kPresentRole).toBool() &&
            item->checkState() == Qt::Checked)
            choice.modes.push_back(LabMode(item->data(kModeRole).toInt()));
    }
    return choice;
}

std::vector<LabMode> LabTargetsDialog::presentModes() const {
    std::vector<LabMode> present;
    if (!m_document)
        return present;
    for (LabMode mode : app::lab::labModes()) {
        if (app::lab::labTargetOf(m_document->session(), mode))
            present.push_back(mode);
    }
    return present;
}

void LabTargetsDialog::setModeChecked(LabMode mode, bool checked) {
    for (int row = 0; row < m_modes->count(); ++row) {
        QListWidgetItem* item = m_modes->item(row);
        if (item->data(kModeRole).isValid() && LabMode(item->data(kModeRole).toInt()) == mode &&
            item->flags().testFlag(Qt::ItemIsEnabled))
            item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
}

void LabTargetsDialog::setServer(LabServerKind kind) {
    const int row = m_server->findData(int(kind));
    if (row >= 0)
        m_server->setCurrentIndex(row);
}

void LabTargetsDialog::choiceChanged() {
    const app::lab::LabTargetChoice now = choice();
    m_sketch->setMtu(now.mtu);
    m_sketch->setClientOnServerHost(now.client == app::LabClientPlacement::ServerHost);
    // The lab as it will be: the session's lab modes and the ones ticked to add.
    std::vector<LabMode> lab = presentModes();
    lab.insert(lab.end(), now.modes.begin(), now.modes.end());
    m_sketch->setModes(lab);
    QString problem;
    if (!now.modes.empty() && m_document) {
        if (auto edit = app::lab::labTargets(m_document->session(), now); !edit)
            problem = edit.error().message;
    }
    m_error->setMessage(problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!now.modes.empty() && problem.isEmpty());
}

void LabTargetsDialog::accept() {
    if (!m_document)
        return reject();
    auto edit = app::lab::labTargets(m_document->session(), choice());
    if (!edit) {
        m_error->setMessage(edit.error().message);
        return;
    }
    // The document's own edits, as "Add" makes them (the first target of an empty session
    // becomes its baseline there), and the plan's profile turned on, as one step to undo.
    edit->lab.host = hostName();
    SessionEdits::of(m_document)->addLabTargets(std::move(edit->targets), edit->lab, edit->plan);
    QDialog::accept();
}

} // namespace loadscope::ui
