#pragma once

#include "app/session/target.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace loadscope::ui {

class FieldError;

// The TLS client options of a tcp-rr target (tcp-rr --tls and its flags), as a group whose
// check box turns TLS on; greyed fields keep what they hold for when it is turned on again.
// The fields' rules are app/session/target_rules.h's, as the CLI and session loading apply
// them; beyond them only whether a named file is there.
class TlsClientFields : public QGroupBox {
    Q_OBJECT

public:
    // Object names begin with `namePrefix`: "tcpRrTls" gives "tcpRrTlsGroup",
    // "tcpRrTlsInsecureCheck", "tcpRrTlsCaFileEdit", "tcpRrTlsCertFileEdit",
    // "tcpRrTlsKeyFileEdit", "tcpRrTlsResumeCheck", "tcpRrTlsVersionCombo".
    explicit TlsClientFields(const QString& namePrefix, QWidget* parent = nullptr);

    void load(const app::TcpRrOptions& options);
    // false: a field is unusable (its message shown) and `options` is unchanged. With TLS
    // off the greyed fields are kept as they are, unchecked.
    bool apply(app::TcpRrOptions& options);

Q_SIGNALS:
    // The user changed a field or the check box.
    void edited();

private:
    QLineEdit* addFileRow(class QFormLayout* form, const QString& label, const QString& name,
                          const QString& placeholder, const QString& toolTip, FieldError** error);

    QCheckBox* m_insecure = nullptr;
    QLineEdit* m_caFile = nullptr;
    FieldError* m_caFileError = nullptr;
    QLineEdit* m_certFile = nullptr;
    FieldError* m_certFileError = nullptr;
    QLineEdit* m_keyFile = nullptr;
    FieldError* m_keyFileError = nullptr;
    QCheckBox* m_resume = nullptr;
    QComboBox* m_version = nullptr;
};

} // namespace loadscope::ui
