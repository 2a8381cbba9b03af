#include "ui/shell/tcp_stream_options_form.h"

#include "engine/tcp_protocol.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"

#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace loadscope::ui {

TcpStreamOptionsForm::TcpStreamOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = new QLineEdit;
    m_address->setObjectName(QStringLiteral("tcpStreamAddressEdit"));
    m_address->setPlaceholderText(QStringLiteral("127.0.0.1:5001"));
    m_address->setToolTip(wrappedToolTip(tr("HOST:PORT of a server that reads and discards "
                                            "what it receives.")));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);

    m_chunkSize = new QSpinBox;
    m_chunkSize->setObjectName(QStringLiteral("chunkSizeSpin"));
    m_chunkSize->setRange(1, static_cast<int>(engine::kMaxTcpMessageBytes));
    m_chunkSize->setSuffix(tr(" B"));
    m_chunkSize->setToolTip(wrappedToolTip(tr("Bytes handed to each send (netperf -m).")));
    addFormRow(form, tr("Chun&k size:"), m_chunkSize);

    connect(m_address, &QLineEdit::textEdited, this, &TcpStreamOptionsForm::notifyEdited);
    connect(m_chunkSize, &QSpinBox::valueChanged, this, &TcpStreamOptionsForm::notifyEdited);
}

void TcpStreamOptionsForm::loadFields(const app::Target& target) {
    m_address->setText(target.address);
    m_chunkSize->setValue(target.tcpStream.chunkSize);
}

bool TcpStreamOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    if (m_addressError->hasMessage())
        return false;
    target.address = m_address->text().trimmed();
    target.tcpStream.chunkSize = m_chunkSize->value();
    return true;
}

} // namespace loadscope::ui
