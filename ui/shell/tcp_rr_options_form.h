#pragma once

#include "ui/shell/protocol_options_form.h"

class QCheckBox;
class QLineEdit;
class QSpinBox;

namespace loadscope::ui {

class FieldError;
class TlsClientFields;

// A TCP request/response target as netperf TCP_RR (-r REQ,RESP) and, with a
// connection per transaction, TCP_CRR; over raw TLS when its group is on.
class TcpRrOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit TcpRrOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QSpinBox* m_requestSize = nullptr;
    QSpinBox* m_responseSize = nullptr;
    QCheckBox* m_connectPerRequest = nullptr;
    TlsClientFields* m_tls = nullptr;
};

} // namespace loadscope::ui
