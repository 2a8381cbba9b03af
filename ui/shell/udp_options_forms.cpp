#include "ui/shell/udp_options_forms.h"

#include "app/session/target.h"
#include "app/session/target_rules.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"

#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace loadscope::ui {

namespace {

QSpinBox* sizeSpin(const QString& objectName, const QString& toolTip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(objectName);
    spin->setRange(1, app::kMaxDatagramBytes);
    spin->setSuffix(QObject::tr(" B"));
    spin->setToolTip(wrappedToolTip(toolTip));
    return spin;
}

QLineEdit* addressEdit(const QString& objectName, const QString& toolTip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(objectName);
    edit->setPlaceholderText(QStringLiteral("127.0.0.1:9000"));
    edit->setToolTip(wrappedToolTip(toolTip));
    return edit;
}

} // namespace

UdpRrOptionsForm::UdpRrOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = addressEdit(QStringLiteral("udpRrAddressEdit"),
                            tr("HOST:PORT of a UDP server that answers every datagram with one "
                               "of the response size, e.g. 'loadscope-cli serve echo --udp'."));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);
    m_requestSize = sizeSpin(QStringLiteral("udpRequestSizeSpin"),
                             tr("Bytes per request datagram (netperf -r REQ,RESP). With 8 or "
                                "more in requests and answers, each carries its sequence "
                                "number: out-of-order, repeated and late answers are counted."));
    addFormRow(form, tr("Re&quest size:"), m_requestSize);
    m_responseSize = sizeSpin(QStringLiteral("udpResponseSizeSpin"),
                              tr("Bytes every answer must have (netperf -r REQ,RESP)."));
    addFormRow(form, tr("Respon&se size:"), m_responseSize);
    m_burst = new QSpinBox;
    m_burst->setObjectName(QStringLiteral("udpBurstSpin"));
    m_burst->setRange(0, app::kMaxUdpBurst);
    m_burst->setToolTip(wrappedToolTip(
        tr("Requests outstanding on a socket beyond the first (netperf -b), so that a lost "
           "one does not hold the socket up.")));
    addFormRow(form, tr("&Burst:"), m_burst);
    addResponseTimeoutRow(form, QStringLiteral("udpRrTimeoutSpin"), tr("Loss &timeout:"),
                          tr("How long to wait for an answer before counting the request "
                             "lost. A lost request is not sent again, and holds its socket up "
                             "this long."));
    m_optionsError = new FieldError;
    form->addRow(m_optionsError);

    connect(m_address, &QLineEdit::textEdited, this, &UdpRrOptionsForm::notifyEdited);
    connect(m_requestSize, &QSpinBox::valueChanged, this, &UdpRrOptionsForm::notifyEdited);
    connect(m_responseSize, &QSpinBox::valueChanged, this, &UdpRrOptionsForm::notifyEdited);
    connect(m_burst, &QSpinBox::valueChanged, this, &UdpRrOptionsForm::notifyEdited);
}

void UdpRrOptionsForm::loadFields(const app::Target& target) {
    m_address->setText(target.address);
    m_requestSize->setValue(target.udpRr.requestSize);
    m_responseSize->setValue(target.udpRr.responseSize);
    m_burst->setValue(target.udpRr.burst);
}

bool UdpRrOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    app::UdpRrOptions options = target.udpRr;
    options.requestSize = m_requestSize->value();
    options.responseSize = m_responseSize->value();
    options.burst = m_burst->value();
    const auto checked = app::checkUdpRr(options);
    m_optionsError->setMessage(checked ? QString() : checked.error().message);
    if (m_addressError->hasMessage() || m_optionsError->hasMessage())
        return false;
    target.address = m_address->text().trimmed();
    target.udpRr = options;
    applyResponseTimeout(target);
    return true;
}

UdpStreamOptionsForm::UdpStreamOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = addressEdit(QStringLiteral("udpStreamAddressEdit"),
                            tr("HOST:PORT of a UDP server that reads and discards: Loadscope's "
                               "('loadscope-cli serve sink --udp') also says what it received."));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);
    m_messageSize = sizeSpin(QStringLiteral("udpMessageSizeSpin"),
                             tr("Bytes per datagram (netperf -m). With 16 or more each carries "
                                "the header Loadscope's sink counts by."));
    addFormRow(form, tr("&Message size:"), m_messageSize);
    m_optionsError = new FieldError;
    form->addRow(m_optionsError);

    connect(m_address, &QLineEdit::textEdited, this, &UdpStreamOptionsForm::notifyEdited);
    connect(m_messageSize, &QSpinBox::valueChanged, this, &UdpStreamOptionsForm::notifyEdited);
}

void UdpStreamOptionsForm::loadFields(const app::Target& target) {
    m_address->setText(target.address);
    m_messageSize->setValue(target.udpStream.messageSize);
}

bool UdpStreamOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    app::UdpStreamOptions options = target.udpStream;
    options.messageSize = m_messageSize->value();
    const auto checked = app::checkUdpStream(options);
    m_optionsError->setMessage(checked ? QString() : checked.error().message);
    if (m_addressError->hasMessage() || m_optionsError->hasMessage())
        return false;
    target.address = m_address->text().trimmed();
    target.udpStream = options;
    return true;
}

} // namespace loadscope::ui
