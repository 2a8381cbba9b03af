#pragma once

#include "ui/shell/protocol_options_form.h"

class QLineEdit;
class QSpinBox;

namespace loadscope::ui {

class FieldError;

// A TCP stream target as netperf TCP_STREAM: connections that only send.
class TcpStreamOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit TcpStreamOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QSpinBox* m_chunkSize = nullptr;
};

} // namespace loadscope::ui
