#include "ui/shell/tls_client_fields.h"

#include "app/session/target_rules.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLineEdit>
#include <algorithm>

namespace loadscope::ui {

namespace {

// An optional file's problem: none when empty or a file, else that it is not there.
QString missingFile(const QString& path) {
    return path.isEmpty() || QFileInfo(path).isFile()
               ? QString()
               : TlsClientFields::tr("There is no file %1").arg(path);
}

} // namespace

TlsClientFields::TlsClientFields(const QString& namePrefix, Switch onOff, QWidget* parent)
    : QGroupBox(onOff == Switch::CheckBox ? tr("T&LS on every connection (--tls)")
                                          : tr("T&LS (https:// URLs)"),
                parent) {
    setObjectName(namePrefix + QStringLiteral("Group"));
    if (onOff == Switch::CheckBox) {
        setCheckable(true);
        setChecked(false);
        setToolTip(wrappedToolTip(tr("Raw TLS, no ALPN, as 'loadscope-cli serve echo --tls' "
                                     "answers; with a connection per transaction each pays a "
                                     "handshake.")));
    } else {
        setEnabled(false);
        setToolTip(wrappedToolTip(tr("Used for an https:// URL; greyed for http://, keeping "
                                     "what it holds.")));
    }
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_insecure = new QCheckBox(tr("Accept any certificate (--insecure)"));
    m_insecure->setObjectName(namePrefix + QStringLiteral("InsecureCheck"));
    m_insecure->setToolTip(wrappedToolTip(
        tr("Without it the server's certificate must verify against the system's CA store or "
           "the CA file, and a failure counts as a TLS error.")));
    form->addRow(QString(), m_insecure);
    m_caFile = addFileRow(form, tr("CA file:"), namePrefix + QStringLiteral("CaFileEdit"),
                          tr("the system's CA store"),
                          tr("A PEM file of the CA certificates to verify the server against "
                             "(--cacert)."),
                          &m_caFileError);
    m_certFile = addFileRow(form, tr("Client certificate:"),
                            namePrefix + QStringLiteral("CertFileEdit"), tr("none"),
                            tr("A PEM client certificate to present (--cert)."), &m_certFileError);
    m_keyFile = addFileRow(form, tr("Client key:"), namePrefix + QStringLiteral("KeyFileEdit"),
                           tr("in the certificate file"),
                           tr("The client certificate's key (--key); empty: in the "
                              "certificate file."),
                           &m_keyFileError);
    m_resume = new QCheckBox(tr("Resume TLS sessions on reconnect"));
    m_resume->setObjectName(namePrefix + QStringLiteral("ResumeCheck"));
    m_resume->setToolTip(
        wrappedToolTip(tr("Without it every connection pays a full handshake (--no-tls-resume).")));
    form->addRow(QString(), m_resume);
    m_version = new QComboBox;
    m_version->setObjectName(namePrefix + QStringLiteral("VersionCombo"));
    m_version->addItem(tr("1.2 or 1.3"), QString());
    m_version->addItem(tr("1.2 only"), QStringLiteral("1.2"));
    m_version->addItem(tr("1.3 only"), QStringLiteral("1.3"));
    addFormRow(form, tr("TLS version:"), m_version);

    connect(this, &QGroupBox::toggled, this, &TlsClientFields::edited);
    connect(m_insecure, &QCheckBox::toggled, this, &TlsClientFields::edited);
    connect(m_resume, &QCheckBox::toggled, this, &TlsClientFields::edited);
    connect(m_version, &QComboBox::currentIndexChanged, this, &TlsClientFields::edited);
    for (QLineEdit* edit : {m_caFile, m_certFile, m_keyFile})
        connect(edit, &QLineEdit::textEdited, this, &TlsClientFields::edited);
}

QLineEdit* TlsClientFields::addFileRow(QFormLayout* form, const QString& label, const QString& name,
                                       const QString& placeholder, const QString& toolTip,
                                       FieldError** error) {
    auto* edit = new QLineEdit;
    edit->setObjectName(name);
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(wrappedToolTip(toolTip));
    *error = new FieldError;
    addFormRow(form, label, edit, *error);
    return edit;
}

void TlsClientFields::setTlsOn(bool on) {
    m_schemeOn = on;
    setEnabled(on);
}

template <typename Options> void TlsClientFields::loadFields(const Options& options) {
    m_insecure->setChecked(options.tlsInsecure);
    m_caFile->setText(options.tlsCaFile);
    m_certFile->setText(options.tlsCertFile);
    m_keyFile->setText(options.tlsKeyFile);
    m_resume->setChecked(options.tlsResume);
    m_version->setCurrentIndex(std::max(0, m_version->findData(options.tlsVersion)));
}

void TlsClientFields::load(const app::TcpRrOptions& options) {
    setChecked(options.tls);
    loadFields(options);
}

void TlsClientFields::load(const app::HttpOptions& options) {
    loadFields(options);
}

template <typename Options> bool TlsClientFields::applyFields(Options& options, bool on) {
    Options candidate = options;
    candidate.tlsInsecure = m_insecure->isChecked();
    candidate.tlsCaFile = m_caFile->text().trimmed();
    candidate.tlsCertFile = m_certFile->text().trimmed();
    candidate.tlsKeyFile = m_keyFile->text().trimmed();
    candidate.tlsResume = m_resume->isChecked();
    candidate.tlsVersion = m_version->currentData().toString();

    QString keyProblem;
    if (on) {
        const auto keyChecked = app::checkTlsClientKey(candidate.tlsCertFile, candidate.tlsKeyFile);
        const auto versionChecked = app::checkTlsVersion(candidate.tlsVersion);
        keyProblem = !keyChecked       ? keyChecked.error().message
                     : !versionChecked ? versionChecked.error().message
                                       : missingFile(candidate.tlsKeyFile);
    }
    m_caFileError->setMessage(on ? missingFile(candidate.tlsCaFile) : QString());
    m_certFileError->setMessage(on ? missingFile(candidate.tlsCertFile) : QString());
    m_keyFileError->setMessage(keyProblem);
    if (m_caFileError->hasMessage() || m_certFileError->hasMessage() ||
        m_keyFileError->hasMessage())
        return false;
    options = candidate;
    return true;
}

bool TlsClientFields::apply(app::TcpRrOptions& options) {
    app::TcpRrOptions candidate = options;
    candidate.tls = isChecked();
    if (!applyFields(candidate, candidate.tls))
        return false;
    options = candidate;
    return true;
}

bool TlsClientFields::apply(app::HttpOptions& options) {
    return applyFields(options, m_schemeOn);
}

} // namespace loadscope::ui
