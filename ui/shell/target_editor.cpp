#include "ui/shell/target_editor.h"

#include "app/session/session_document.h"
#include "app/session/target_rules.h"
#include "ui/common/colour_button.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/http_options_form.h"
#include "ui/shell/memcache_options_form.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/target_field_checks.h"
#include "ui/shell/tcp_rr_options_form.h"
#include "ui/shell/tcp_stream_options_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace loadscope::ui {

using app::DeploymentMode;
using app::Target;
using app::TargetProtocol;

namespace {

QString protocolTitle(TargetProtocol protocol) {
    switch (protocol) {
    case TargetProtocol::Http:
        return QObject::tr("HTTP (as ab, wrk)");
    case TargetProtocol::Memcache:
        return QObject::tr("memcached text protocol (as memtier_benchmark)");
    case TargetProtocol::TcpRr:
        return QObject::tr("TCP request/response (as netperf TCP_RR)");
    case TargetProtocol::TcpStream:
        return QObject::tr("TCP stream (as netperf TCP_STREAM)");
    }
    return {};
}

} // namespace

TargetEditor::TargetEditor(app::SessionDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document) {
    buildCommonFields();
    connect(m_document, &app::SessionDocument::sessionChanged, this, &TargetEditor::followDocument);
    setTargetId({});
}

void TargetEditor::buildCommonFields() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);

    m_labNote = new QLabel;
    m_labNote->setObjectName(QStringLiteral("labNote"));
    m_labNote->setWordWrap(true);
    m_labNote->setTextFormat(Qt::PlainText);
    m_labNote->setVisible(false);
    outer->addWidget(m_labNote);

    auto* identity = new QGroupBox(tr("Target"));
    auto* form = new QFormLayout(identity);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_name->setPlaceholderText(tr("the deployment mode's name"));
    m_name->setToolTip(wrappedToolTip(tr("How charts, tables and CSV name this target.")));
    addFormRow(form, tr("&Name:"), m_name);

    m_mode = new QComboBox;
    m_mode->setObjectName(QStringLiteral("modeCombo"));
    m_mode->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    for (DeploymentMode mode : app::deploymentModes())
        m_mode->addItem(app::deploymentModeTitle(mode), static_cast<int>(mode));
    m_mode->addItem(tr("Other…"), static_cast<int>(DeploymentMode::Custom));
    m_mode->setToolTip(wrappedToolTip(tr("How the server is reached: the deployment modes "
                                         "the comparison is about.")));
    m_customMode = new QLineEdit;
    m_customMode->setObjectName(QStringLiteral("customModeEdit"));
    m_customMode->setPlaceholderText(tr("describe the mode, e.g. ipvlan-l3"));
    m_customMode->setAccessibleName(tr("Own deployment mode"));
    auto* modeCell = new QWidget;
    auto* modeLayout = new QVBoxLayout(modeCell);
    modeLayout->setContentsMargins(0, 0, 0, 0);
    modeLayout->setSpacing(4);
    modeLayout->addWidget(m_mode);
    modeLayout->addWidget(m_customMode);
    addFormRow(form, tr("&Mode:"), modeCell)->setBuddy(m_mode);

    m_colour = new ColourButton;
    m_colour->setObjectName(QStringLiteral("colourButton"));
    m_colour->setToolTip(wrappedToolTip(tr("The colour of this target in every chart.")));
    addFormRow(form, tr("&Colour:"), m_colour);

    m_protocol = new QComboBox;
    m_protocol->setObjectName(QStringLiteral("protocolCombo"));
    m_protocol->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    for (TargetProtocol protocol : app::targetProtocols())
        m_protocol->addItem(protocolTitle(protocol), static_cast<int>(protocol));
    addFormRow(form, tr("P&rotocol:"), m_protocol);
    outer->addWidget(identity);

    auto* options = new QGroupBox(tr("Protocol options"));
    auto* optionsLayout = new QVBoxLayout(options);
    m_forms = new QStackedWidget;
    // In the order of targetProtocols(), so the combo's index is the page's.
    for (TargetProtocol protocol : app::targetProtocols()) {
        ProtocolOptionsForm* page = nullptr;
        switch (protocol) {
        case TargetProtocol::Http:
            page = new HttpOptionsForm;
            break;
        case TargetProtocol::Memcache:
            page = new MemcacheOptionsForm;
            break;
        case TargetProtocol::TcpRr:
            page = new TcpRrOptionsForm;
            break;
        case TargetProtocol::TcpStream:
            page = new TcpStreamOptionsForm;
            break;
        }
        connect(page, &ProtocolOptionsForm::edited, this, &TargetEditor::applyFields);
        m_forms->addWidget(page);
    }
    optionsLayout->addWidget(m_forms);
    m_targetError = new FieldError;
    m_targetError->setObjectName(QStringLiteral("targetError"));
    m_targetError->setField(m_forms, tr("Protocol options"));
    optionsLayout->addWidget(m_targetError);
    outer->addWidget(options);
    outer->addWidget(buildServerCpuFields());
    outer->addWidget(buildHostFields());
    outer->addStretch();

    connect(m_name, &QLineEdit::textEdited, this, &TargetEditor::applyFields);
    connect(m_customMode, &QLineEdit::textEdited, this, &TargetEditor::applyFields);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
        m_customMode->setVisible(m_mode->currentData().toInt() ==
                                 static_cast<int>(DeploymentMode::Custom));
        if (m_customMode->isVisible() && !m_loading)
            m_customMode->setFocus();
        applyFields();
    });
    connect(m_colour, &ColourButton::colourChanged, this, &TargetEditor::applyFields);
    connect(m_protocol, &QComboBox::currentIndexChanged, this, &TargetEditor::protocolChosen);
}

QWidget* TargetEditor::buildServerCpuFields() {
    auto* group = new QGroupBox(tr("Server CPU"));
    group->setObjectName(QStringLiteral("serverCpuGroup"));
    auto* form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const auto addField = [this, form](const QString& name, const QString& label,
                                       const QString& placeholder, const QString& tip,
                                       FieldError** error) {
        auto* edit = new QLineEdit;
        edit->setObjectName(name + QStringLiteral("Edit"));
        edit->setPlaceholderText(placeholder);
        edit->setToolTip(wrappedToolTip(tip));
        *error = new FieldError;
        (*error)->setObjectName(name + QStringLiteral("Error"));
        addFormRow(form, label, edit, *error);
        connect(edit, &QLineEdit::textEdited, this, &TargetEditor::applyFields);
        return edit;
    };
    m_serverPid = addField(
        QStringLiteral("serverPid"), tr("Server &PID:"),
        tr("found from the port when the server is on 127.0.0.1"),
        tr("The server's process on this machine: its CPU and its children's (nginx or Apache "
           "workers) over each point is the server CPU per request. Empty: the process "
           "listening on a loopback target's port."),
        &m_serverPidError);
    m_serverCgroup = addField(
        QStringLiteral("serverCgroup"), tr("Server c&group:"),
        tr("e.g. /sys/fs/cgroup/system.slice/nginx.service"),
        tr("A cgroup directory whose cpu.stat (or cpuacct.usage) counts the server's CPU: a "
           "container's or a systemd service's."),
        &m_serverCgroupError);
    // A warning, not an error: the target stays usable.
    m_serverCpuWarning = new QLabel;
    m_serverCpuWarning->setObjectName(QStringLiteral("serverCpuWarning"));
    m_serverCpuWarning->setWordWrap(true);
    m_serverCpuWarning->setTextFormat(Qt::PlainText);
    m_serverCpuWarning->setVisible(false);
    form->addRow(m_serverCpuWarning);
    return group;
}

bool TargetEditor::applyServerCpuFields(Target& edited) {
    const QString pidText = m_serverPid->text().trimmed();
    const QString cgroup = m_serverCgroup->text().trimmed();
    m_serverPidError->setMessage(serverPidProblem(pidText));
    m_serverCgroupError->setMessage(serverCgroupProblem(cgroup));
    const bool ok = !m_serverPidError->hasMessage() && !m_serverCgroupError->hasMessage();
    if (ok) {
        edited.serverPid = pidText.isEmpty() ? 0 : *app::parseServerPid(pidText);
        edited.serverCgroup = cgroup;
    }
    const QString warning = ok ? serverCpuWarning(edited) : QString();
    m_serverCpuWarning->setText(warning);
    m_serverCpuWarning->setVisible(!warning.isEmpty());
    return ok;
}

QWidget* TargetEditor::buildHostFields() {
    auto* group = new QGroupBox(tr("Hosts"));
    group->setObjectName(QStringLiteral("hostsGroup"));
    auto* form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const auto addField = [this, form](const QString& name, const QString& label,
                                       const QString& placeholder, const QString& tip,
                                       FieldError** error) {
        auto* edit = new QLineEdit;
        edit->setObjectName(name + QStringLiteral("Edit"));
        edit->setPlaceholderText(placeholder);
        edit->setToolTip(wrappedToolTip(tip));
        *error = new FieldError;
        (*error)->setObjectName(name + QStringLiteral("Error"));
        addFormRow(form, label, edit, *error);
        connect(edit, &QLineEdit::textEdited, this, &TargetEditor::applyFields);
        return edit;
    };
    m_loadFrom = addField(
        QStringLiteral("loadFrom"), tr("&Load from:"), tr("this machine"),
        tr("The session's hosts (Targets ▸ Hosts…) that send this target's load, comma-separated: "
           "each gets its share of the connections and rate, all start together, and their "
           "results merge exactly. Empty: this machine."),
        &m_loadFromError);
    m_serverHost = addField(
        QStringLiteral("serverHost"), tr("Server &host:"), tr("this machine"),
        tr("The session's host the server runs on: its CPU, the host's softirq and other load "
           "are read there over each point (with the PID or cgroup above, or the process or "
           "container below, in that host's terms)."),
        &m_serverHostError);
    m_serverProcess = addField(
        QStringLiteral("serverProcess"), tr("Server p&rocess:"), tr("e.g. nginx"),
        tr("The server found by its name on its host when the sweep starts: the oldest process "
           "of that name, with its children."),
        &m_serverProcessError);
    m_serverContainer = addField(
        QStringLiteral("serverContainer"), tr("Server con&tainer:"), tr("e.g. web-1"),
        tr("A container whose cgroup is the server's, found through docker or podman on the "
           "server's host."),
        &m_serverContainerError);
    return group;
}

bool TargetEditor::applyHostFields(Target& edited) {
    const app::Session* session = m_document ? &m_document->session() : nullptr;
    const auto hostProblem = [session](const QString& name) -> QString {
        if (auto checked = app::checkHostName(name); !checked)
            return checked.error().message;
        if (session && !session->findHost(name))
            return tr("the session has no host '%1' (Targets ▸ Hosts…)").arg(name);
        return {};
    };
    std::vector<QString> loadFrom;
    QString loadFromProblem;
    for (const QString& part : m_loadFrom->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString name = part.trimmed();
        if (name.isEmpty())
            continue;
        if (loadFromProblem.isEmpty())
            loadFromProblem = hostProblem(name);
        if (loadFromProblem.isEmpty() &&
            std::find(loadFrom.begin(), loadFrom.end(), name) != loadFrom.end())
            loadFromProblem = tr("host '%1' is named twice").arg(name);
        loadFrom.push_back(name);
    }
    m_loadFromError->setMessage(loadFromProblem);
    const QString serverHost = m_serverHost->text().trimmed();
    m_serverHostError->setMessage(serverHost.isEmpty() ? QString() : hostProblem(serverHost));
    const QString process = m_serverProcess->text().trimmed();
    const auto processChecked = app::checkServerProcessName(process);
    m_serverProcessError->setMessage(
        process.isEmpty() || processChecked ? QString() : processChecked.error().message);
    const QString container = m_serverContainer->text().trimmed();
    const auto containerChecked = app::checkContainerName(container);
    m_serverContainerError->setMessage(
        container.isEmpty() || containerChecked ? QString() : containerChecked.error().message);
    const bool ok = !m_loadFromError->hasMessage() && !m_serverHostError->hasMessage() &&
                    !m_serverProcessError->hasMessage() && !m_serverContainerError->hasMessage();
    if (ok) {
        edited.loadFrom = std::move(loadFrom);
        edited.serverHost = serverHost;
        edited.serverProcess = process;
        edited.serverContainer = container;
    }
    return ok;
}

ProtocolOptionsForm* TargetEditor::currentForm() const {
    return qobject_cast<ProtocolOptionsForm*>(m_forms->currentWidget());
}

std::optional<FieldInError> TargetEditor::fieldInError() const {
    return m_target.id.isNull() ? std::nullopt : firstFieldInError(this);
}

void TargetEditor::setTargetId(const QUuid& id) {
    const Target* target = m_document ? m_document->session().findTarget(id) : nullptr;
    setEnabled(target != nullptr);
    loadTarget(target ? *target : Target{});
}

void TargetEditor::loadTarget(const Target& target) {
    m_loading = true;
    m_target = target;
    m_name->setText(target.name);
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(target.mode)));
    m_customMode->setText(target.customMode);
    m_customMode->setVisible(target.mode == DeploymentMode::Custom);
    m_colour->setColour(QColor(target.colour));
    m_protocol->setCurrentIndex(m_protocol->findData(static_cast<int>(target.protocol)));
    m_forms->setCurrentIndex(m_protocol->currentIndex());
    for (int i = 0; i < m_forms->count(); ++i)
        qobject_cast<ProtocolOptionsForm*>(m_forms->widget(i))->load(target);
    m_serverPid->setText(target.serverPid > 0 ? QString::number(target.serverPid) : QString());
    m_serverCgroup->setText(target.serverCgroup);
    // The lab starts a lab target's server and knows its process itself.
    m_serverPid->setEnabled(!target.lab);
    m_serverCgroup->setEnabled(!target.lab);
    m_labNote->setVisible(bool(target.lab));
    if (target.lab)
        m_labNote->setText(tr("A lab target: the deployment lab builds mode %1 and runs the %2 "
                              "server in it. The sweep reaches it at the address the lab gives "
                              "the mode; the address below only stands in until then.")
                               .arg(target.lab->mode, target.lab->server));
    QStringList loadFrom;
    for (const QString& host : target.loadFrom)
        loadFrom << host;
    m_loadFrom->setText(loadFrom.join(QStringLiteral(", ")));
    m_serverHost->setText(target.serverHost);
    m_serverProcess->setText(target.serverProcess);
    m_serverContainer->setText(target.serverContainer);
    // A lab target's load and server are the lab's.
    for (QLineEdit* edit : {m_loadFrom, m_serverHost, m_serverProcess, m_serverContainer})
        edit->setEnabled(!target.lab);
    m_loading = false;

    // A target read from a file may already be unusable: say so at once.
    if (target.id.isNull()) {
        m_targetError->setMessage({});
        m_serverCpuWarning->setVisible(false);
        setValid(true);
        return;
    }
    Target checked = target;
    const bool serverCpuOk = applyServerCpuFields(checked);
    const bool hostsOk = applyHostFields(checked);
    const bool fieldsOk = currentForm()->apply(checked) && serverCpuOk && hostsOk;
    m_targetError->setMessage(fieldsOk ? targetProblem(checked) : QString());
    setValid(fieldsOk && !m_targetError->hasMessage());
}

void TargetEditor::followDocument() {
    if (m_target.id.isNull())
        return;
    const Target* current = m_document->session().findTarget(m_target.id);
    if (!current) {
        setTargetId({});
        return;
    }
    // Our own edits come back equal; only a change made elsewhere reloads
    // (and would drop a half-typed invalid field, which is then stale anyway).
    if (*current != m_target)
        loadTarget(*current);
}

void TargetEditor::protocolChosen() {
    if (m_loading)
        return;
    // Fields shared by the forms (the address) travel to the new form.
    Target carried = m_target;
    currentForm()->apply(carried);
    m_forms->setCurrentIndex(m_protocol->currentIndex());
    currentForm()->load(carried);
    applyFields();
}

void TargetEditor::applyFields() {
    if (m_loading || m_target.id.isNull() || !m_document)
        return;
    Target edited = m_target;
    edited.name = m_name->text();
    edited.mode = static_cast<DeploymentMode>(m_mode->currentData().toInt());
    edited.customMode =
        edited.mode == DeploymentMode::Custom ? m_customMode->text().trimmed() : QString();
    if (m_colour->colour().isValid())
        edited.colour = m_colour->colour().name();
    edited.protocol = static_cast<TargetProtocol>(m_protocol->currentData().toInt());

    // Each, so that each shows its own message.
    const bool serverCpuOk = applyServerCpuFields(edited);
    const bool hostsOk = applyHostFields(edited);
    const bool fieldsOk = currentForm()->apply(edited) && serverCpuOk && hostsOk;
    m_targetError->setMessage(fieldsOk ? targetProblem(edited) : QString());
    const bool valid = fieldsOk && !m_targetError->hasMessage();
    setValid(valid);
    if (!valid)
        return;
    m_target = edited;
    SessionEdits::of(m_document)->updateTarget(edited);
}

void TargetEditor::setValid(bool valid) {
    if (m_valid == valid)
        return;
    m_valid = valid;
    Q_EMIT validityChanged(m_valid);
}

} // namespace loadscope::ui
