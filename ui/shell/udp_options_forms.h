#pragma once

#include "ui/shell/protocol_options_form.h"

class QLabel;
class QLineEdit;
class QSpinBox;

namespace loadscope::ui {

class FieldError;

// A UDP request/response target as netperf UDP_RR (-r REQ,RESP, -b), with the timeout after
// which a request counts as lost.
class UdpRrOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit UdpRrOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QSpinBox* m_requestSize = nullptr;
    QSpinBox* m_responseSize = nullptr;
    QSpinBox* m_burst = nullptr;
    FieldError* m_optionsError = nullptr;
};

// A UDP stream target as netperf UDP_STREAM: sockets that only send datagrams of one size.
class UdpStreamOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit UdpStreamOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QSpinBox* m_messageSize = nullptr;
    FieldError* m_optionsError = nullptr;
};

} // namespace loadscope::ui
