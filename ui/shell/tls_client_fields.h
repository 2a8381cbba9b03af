#pragma once

#include "app/session/target.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace loadscope::ui {

class FieldError;

// The TLS client options of a target: of tcp-rr (tcp-rr --tls and its flags), as a group whose
// check box turns TLS on, or of http, where the URL's scheme does and the form calls setTlsOn().
// Greyed fields keep what they hold for when TLS is on again. The fields' rules are
// app/session/target_rules.h's, as the CLI and session loading apply them; beyond them only
// whether a named file is there.
class TlsClientFields : public QGroupBox {
    Q_OBJECT

public:
    // Object names begin with `namePrefix`: "tcpRrTls" gives "tcpRrTlsGroup",
    // "tcpRrTlsInsecureCheck", "tcpRrTlsCaFileEdit", "tcpRrTlsCertFileEdit",
    // "tcpRrTlsKeyFileEdit", "tcpRrTlsResumeCheck", "tcpRrTlsVersionCombo".
    // `Switch::Scheme`: no check box, TLS is on while setTlsOn(true) says so.
    enum class Switch { CheckBox, Scheme };
    explicit TlsClientFields(const QString& namePrefix, Switch onOff = Switch::CheckBox,
                             QWidget* parent = nullptr);

    void load(const app::TcpRrOptions& options);
    void load(const app::HttpOptions& options);
    // false: a field is unusable (its message shown) and `options` is unchanged. With TLS
    // off the greyed fields are kept as they are, unchecked.
    bool apply(app::TcpRrOptions& options);
    bool apply(app::HttpOptions& options);

    // Switch::Scheme: whether the URL asks for TLS; off greys the fields.
    void setTlsOn(bool on);

Q_SIGNALS:
    // The user changed a field or the check box.
    void edited();

private:
    QLineEdit* addFileRow(class QFormLayout* form, const QString& label, const QString& name,
                          const QString& placeholder, const QString& toolTip, FieldError** error);
    // What both kinds of options hold under the same names.
    template <typename Options> void loadFields(const Options& options);
    template <typename Options> bool applyFields(Options& options, bool on);

    bool m_schemeOn = false; // Switch::Scheme's state

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
