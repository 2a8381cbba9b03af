#pragma once

#include "ui/shell/protocol_options_form.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace loadscope::ui {

class FieldError;

// URL, connect-to address, method, extra headers, request body and
// connection reuse of an http target: what ab's -k, -H, -p and -T say.
class HttpOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit HttpOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    void addHeader();
    void removeHeader();
    void chooseBodyFile();

    QLineEdit* m_url = nullptr;
    FieldError* m_urlError = nullptr;
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QComboBox* m_method = nullptr;
    FieldError* m_methodError = nullptr;
    QTableWidget* m_headers = nullptr;
    QPushButton* m_removeHeader = nullptr;
    FieldError* m_headersError = nullptr;
    QLineEdit* m_bodyFile = nullptr;
    FieldError* m_bodyFileError = nullptr;
    QLineEdit* m_contentType = nullptr;
    QCheckBox* m_keepAlive = nullptr;
    QSpinBox* m_pipeline = nullptr;
    QCheckBox* m_acceptVariableLength = nullptr;
    QCheckBox* m_http10 = nullptr;
    // https only: verification, a CA file, resumption, one TLS version.
    QCheckBox* m_tlsInsecure = nullptr;
    QLineEdit* m_tlsCaFile = nullptr;
    FieldError* m_tlsCaFileError = nullptr;
    QCheckBox* m_tlsResume = nullptr;
    QComboBox* m_tlsVersion = nullptr;
};

} // namespace loadscope::ui
