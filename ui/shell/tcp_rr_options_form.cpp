#include "ui/shell/tcp_rr_options_form.h"

#include "engine/tcp_protocol.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"
#include "ui/shell/tls_client_fields.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace loadscope::ui {

TcpRrOptionsForm::TcpRrOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = new QLineEdit;
    m_address->setObjectName(QStringLiteral("tcpRrAddressEdit"));
    m_address->setPlaceholderText(QStringLiteral("127.0.0.1:12865"));
    m_address->setToolTip(wrappedToolTip(tr("HOST:PORT of a server that answers each request "
                                            "with a response of the size below.")));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);

    const int maxBytes = static_cast<int>(engine::kMaxTcpMessageBytes);
    m_requestSize = new QSpinBox;
    m_requestSize->setObjectName(QStringLiteral("requestSizeSpin"));
    m_requestSize->setRange(1, maxBytes);
    m_requestSize->setSuffix(tr(" B"));
    m_requestSize->setToolTip(wrappedToolTip(tr("Bytes per request (netperf -r REQ,RESP).")));
    addFormRow(form, tr("Re&quest size:"), m_requestSize);

    m_responseSize = new QSpinBox;
    m_responseSize->setObjectName(QStringLiteral("responseSizeSpin"));
    m_responseSize->setRange(1, maxBytes);
    m_responseSize->setSuffix(tr(" B"));
    m_responseSize->setToolTip(wrappedToolTip(tr("Bytes per response (netperf -r REQ,RESP).")));
    addFormRow(form, tr("Respon&se size:"), m_responseSize);

    m_connectPerRequest = new QCheckBox(tr("Ne&w connection per transaction (TCP_CRR)"));
    m_connectPerRequest->setObjectName(QStringLiteral("crrCheck"));
    form->addRow(QString(), m_connectPerRequest);
    m_tls = new TlsClientFields(QStringLiteral("tcpRrTls"));
    form->addRow(m_tls);
    addResponseTimeoutRow(form, QStringLiteral("tcpRrTimeoutSpin"));

    connect(m_address, &QLineEdit::textEdited, this, &TcpRrOptionsForm::notifyEdited);
    connect(m_requestSize, &QSpinBox::valueChanged, this, &TcpRrOptionsForm::notifyEdited);
    connect(m_responseSize, &QSpinBox::valueChanged, this, &TcpRrOptionsForm::notifyEdited);
    connect(m_connectPerRequest, &QCheckBox::toggled, this, &TcpRrOptionsForm::notifyEdited);
    connect(m_tls, &TlsClientFields::edited, this, &TcpRrOptionsForm::notifyEdited);
}

void TcpRrOptionsForm::loadFields(const app::Target& target) {
    m_address->setText(target.address);
    m_requestSize->setValue(target.tcpRr.requestSize);
    m_responseSize->setValue(target.tcpRr.responseSize);
    m_connectPerRequest->setChecked(target.tcpRr.connectPerRequest);
    m_tls->load(target.tcpRr);
}

bool TcpRrOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    app::TcpRrOptions tls = target.tcpRr;
    const bool tlsUsable = m_tls->apply(tls);
    if (m_addressError->hasMessage() || !tlsUsable)
        return false;
    target.tcpRr = tls;
    target.address = m_address->text().trimmed();
    target.tcpRr.requestSize = m_requestSize->value();
    target.tcpRr.responseSize = m_responseSize->value();
    target.tcpRr.connectPerRequest = m_connectPerRequest->isChecked();
    applyResponseTimeout(target);
    return true;
}

} // namespace loadscope::ui
