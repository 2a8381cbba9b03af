#pragma once

#include "ui/shell/protocol_options_form.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace loadscope::ui {

class FieldError;
class TlsClientFields;

// URL, connect-to address, method, extra headers, request body and
// connection reuse of an http target: what ab's -k, -H, -p and -T say; its
// TLS options; and HTTP/2 with h2load's streams and windows.
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
    // The HTTP/2 box, its streams and windows, and what it makes meaningless.
    QGroupBox* buildHttp2Group();
    // The user ticked or cleared HTTP/2.
    void http2Toggled(bool on);
    // HTTP/2's fields only while it is on; the pipeline and HTTP/1.0 only
    // while it is off, or while they hold what HTTP/2 refuses, so that such
    // a value read from a file can be undone where it shows.
    void updateHttp2Fields();
    // The TLS group is on for an https:// URL only, as the builder uses it.
    void updateTlsFields();

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
    TlsClientFields* m_tls = nullptr; // https only
    // HTTP/2: the streams stand in for the pipeline (both are the requests
    // outstanding on a connection), windows as h2load's bits.
    QCheckBox* m_http2 = nullptr;
    FieldError* m_http2Error = nullptr;
    QSpinBox* m_http2Streams = nullptr;
    QSpinBox* m_http2WindowBits = nullptr;
    QLabel* m_http2WindowBytes = nullptr;
    QSpinBox* m_http2ConnectionWindowBits = nullptr;
    QLabel* m_http2ConnectionWindowBytes = nullptr;
};

} // namespace loadscope::ui
