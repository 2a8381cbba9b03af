#include "ui/shell/http_options_form.h"

#include "app/session/target_rules.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"
#include "ui/shell/tls_client_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

namespace loadscope::ui {

namespace {

// An optional file field (the body file): its trimmed path, and
// its error line saying so when it names no file.
QString checkedFilePath(const QLineEdit* edit, FieldError* error) {
    const QString path = edit->text().trimmed();
    error->setMessage(path.isEmpty() || QFileInfo(path).isFile()
                          ? QString()
                          : HttpOptionsForm::tr("There is no file %1").arg(path));
    return path;
}

// "= 65,535 bytes": the flow-control window of h2load's `bits`, 2^bits - 1.
QString windowBytesText(int bits) {
    return HttpOptionsForm::tr("= %1 bytes").arg(QLocale().toString((qulonglong(1) << bits) - 1));
}

// A window's bits with the bytes they come to beside them.
QWidget* windowRow(QSpinBox* bits, QLabel* bytes) {
    bits->setRange(0, app::kMaxHttp2WindowBits);
    bits->setSuffix(HttpOptionsForm::tr(" bits"));
    bits->setMinimumWidth(100);
    bytes->setText(windowBytesText(bits->value()));
    QObject::connect(bits, &QSpinBox::valueChanged, bytes,
                     [bytes](int value) { bytes->setText(windowBytesText(value)); });
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(bits);
    layout->addWidget(bytes, 1);
    return row;
}

} // namespace

HttpOptionsForm::HttpOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_url = new QLineEdit;
    m_url->setObjectName(QStringLiteral("urlEdit"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:8080/"));
    m_url->setToolTip(wrappedToolTip(tr("The URL every request asks for (http only). Its host "
                                        "and port are where connections go unless Connect to "
                                        "says otherwise.")));
    m_urlError = new FieldError;
    m_urlError->setObjectName(QStringLiteral("urlError"));
    addFormRow(form, tr("&URL:"), m_url, m_urlError);

    m_address = new QLineEdit;
    m_address->setObjectName(QStringLiteral("httpAddressEdit"));
    m_address->setPlaceholderText(tr("the URL's host and port"));
    m_address->setToolTip(wrappedToolTip(
        tr("HOST:PORT to connect to instead of the URL's own, e.g. a container's published "
           "port, while the URL still gives the Host header and path.")));
    m_addressError = new FieldError;
    addFormRow(form, tr("Connect &to:"), m_address, m_addressError);

    m_method = new QComboBox;
    m_method->setObjectName(QStringLiteral("methodCombo"));
    m_method->setEditable(true);
    m_method->setMinimumContentsLength(10);
    m_method->addItems({QStringLiteral("GET"), QStringLiteral("HEAD"), QStringLiteral("POST"),
                        QStringLiteral("PUT"), QStringLiteral("DELETE"), QStringLiteral("PATCH"),
                        QStringLiteral("OPTIONS")});
    m_methodError = new FieldError;
    addFormRow(form, tr("Metho&d:"), m_method, m_methodError);

    m_headers = new QTableWidget(0, 2);
    m_headers->setObjectName(QStringLiteral("headersTable"));
    m_headers->setHorizontalHeaderLabels({tr("Header"), tr("Value")});
    m_headers->horizontalHeader()->setStretchLastSection(true);
    m_headers->verticalHeader()->hide();
    m_headers->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_headers->setTabKeyNavigation(false); // Tab leaves the table, as in every other field
    m_headers->setMinimumHeight(80);
    m_headers->setMaximumHeight(110);
    m_headers->setToolTip(wrappedToolTip(tr("Extra request headers, sent in this order (ab -H).")));
    auto* addHeader = new QPushButton(tr("Add Header"));
    m_removeHeader = new QPushButton(tr("Remove Header"));
    m_removeHeader->setEnabled(false);
    auto* headerButtons = new QHBoxLayout;
    headerButtons->addWidget(addHeader);
    headerButtons->addWidget(m_removeHeader);
    headerButtons->addStretch();
    auto* headerCell = new QWidget;
    headerCell->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* headerColumn = new QVBoxLayout(headerCell);
    headerColumn->setContentsMargins(0, 0, 0, 0);
    headerColumn->addWidget(m_headers);
    headerColumn->addLayout(headerButtons);
    m_headersError = new FieldError;
    addFormRow(form, tr("He&aders:"), headerCell, m_headersError)->setBuddy(m_headers);

    m_bodyFile = new QLineEdit;
    m_bodyFile->setObjectName(QStringLiteral("bodyFileEdit"));
    m_bodyFile->setPlaceholderText(tr("no body"));
    m_bodyFile->setToolTip(wrappedToolTip(tr("A file whose bytes are sent as each request's "
                                             "body (ab -p / -u).")));
    auto* browse = new QPushButton(tr("Bro&wse…"));
    auto* bodyRow = new QWidget;
    bodyRow->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* bodyLayout = new QHBoxLayout(bodyRow);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addWidget(m_bodyFile, 1);
    bodyLayout->addWidget(browse);
    m_bodyFileError = new FieldError;
    addFormRow(form, tr("&Body file:"), bodyRow, m_bodyFileError)->setBuddy(m_bodyFile);

    m_contentType = new QLineEdit;
    m_contentType->setObjectName(QStringLiteral("contentTypeEdit"));
    m_contentType->setPlaceholderText(QStringLiteral("application/json"));
    m_contentType->setToolTip(wrappedToolTip(tr("Content-Type of the body (ab -T).")));
    addFormRow(form, tr("Content t&ype:"), m_contentType);

    m_keepAlive = new QCheckBox(tr("&Keep connections alive (ab -k)"));
    m_keepAlive->setObjectName(QStringLiteral("keepAliveCheck"));
    form->addRow(QString(), m_keepAlive);

    m_pipeline = new QSpinBox;
    m_pipeline->setObjectName(QStringLiteral("httpPipelineSpin"));
    m_pipeline->setRange(1, 1000);
    m_pipeline->setMinimumWidth(100);
    m_pipeline->setToolTip(wrappedToolTip(tr("Requests sent on a connection before waiting for "
                                             "their responses; 1 is what ab and wrk do.")));
    addFormRow(form, tr("&Pipeline:"), m_pipeline);

    m_acceptVariableLength = new QCheckBox(tr("Accept bodies of &varying length (ab -l)"));
    m_acceptVariableLength->setObjectName(QStringLiteral("acceptVariableLengthCheck"));
    m_acceptVariableLength->setToolTip(
        wrappedToolTip(tr("Without it a body whose length differs from the first response's "
                          "counts as a Length failure, as in ab.")));
    form->addRow(QString(), m_acceptVariableLength);

    m_http10 = new QCheckBox(tr("Send HTTP/&1.0, as ab does"));
    m_http10->setObjectName(QStringLiteral("http10Check"));
    m_http10->setToolTip(
        wrappedToolTip(tr("An HTTP/1.0 request line, as ab sends it: a server then answers "
                          "without chunked coding, so byte counts match ab's.")));
    form->addRow(QString(), m_http10);

    form->addRow(buildHttp2Group());

    m_tls = new TlsClientFields(QStringLiteral("httpTls"), TlsClientFields::Switch::Scheme);
    form->addRow(m_tls);

    addResponseTimeoutRow(form, QStringLiteral("httpTimeoutSpin"));

    connect(m_url, &QLineEdit::textEdited, this, &HttpOptionsForm::notifyEdited);
    connect(m_address, &QLineEdit::textEdited, this, &HttpOptionsForm::notifyEdited);
    connect(m_method, &QComboBox::currentTextChanged, this, &HttpOptionsForm::notifyEdited);
    connect(m_headers, &QTableWidget::itemChanged, this, &HttpOptionsForm::notifyEdited);
    connect(m_headers, &QTableWidget::itemSelectionChanged, this,
            [this] { m_removeHeader->setEnabled(!m_headers->selectedItems().isEmpty()); });
    connect(addHeader, &QPushButton::clicked, this, &HttpOptionsForm::addHeader);
    connect(m_removeHeader, &QPushButton::clicked, this, &HttpOptionsForm::removeHeader);
    connect(m_bodyFile, &QLineEdit::textEdited, this, &HttpOptionsForm::notifyEdited);
    connect(browse, &QPushButton::clicked, this, &HttpOptionsForm::chooseBodyFile);
    connect(m_contentType, &QLineEdit::textEdited, this, &HttpOptionsForm::notifyEdited);
    connect(m_keepAlive, &QCheckBox::toggled, this, &HttpOptionsForm::notifyEdited);
    connect(m_pipeline, &QSpinBox::valueChanged, this, &HttpOptionsForm::notifyEdited);
    connect(m_acceptVariableLength, &QCheckBox::toggled, this, &HttpOptionsForm::notifyEdited);
    connect(m_http10, &QCheckBox::toggled, this, &HttpOptionsForm::notifyEdited);
    connect(m_url, &QLineEdit::textEdited, this, &HttpOptionsForm::updateTlsFields);
    connect(m_tls, &TlsClientFields::edited, this, &HttpOptionsForm::notifyEdited);
    connect(m_pipeline, &QSpinBox::valueChanged, this, &HttpOptionsForm::updateHttp2Fields);
    connect(m_http10, &QCheckBox::toggled, this, &HttpOptionsForm::updateHttp2Fields);
    updateHttp2Fields();
}

QGroupBox* HttpOptionsForm::buildHttp2Group() {
    auto* group = new QGroupBox(tr("HTTP/2"));
    group->setObjectName(QStringLiteral("http2Group"));
    auto* form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_http2 = new QCheckBox(tr("HTTP/&2 (h2 over TLS by ALPN, h2c by prior knowledge on http://)"));
    m_http2->setObjectName(QStringLiteral("http2Check"));
    m_http2->setToolTip(wrappedToolTip(
        tr("Requests as HTTP/2 streams, as h2load sends them (--h2). Every connection is kept "
           "alive; the pipeline and HTTP/1.0 have no meaning there.")));
    m_http2Error = new FieldError;
    m_http2Error->setObjectName(QStringLiteral("http2Error"));
    addFormRow(form, QString(), m_http2, m_http2Error);

    m_http2Streams = new QSpinBox;
    m_http2Streams->setObjectName(QStringLiteral("http2StreamsSpin"));
    m_http2Streams->setRange(1, app::kMaxHttp2Streams);
    m_http2Streams->setMinimumWidth(100);
    m_http2Streams->setToolTip(wrappedToolTip(
        tr("Streams each connection keeps open (h2load -m, --max-concurrent-streams): the "
           "requests outstanding on it, in place of the pipeline. A point's concurrency is "
           "its connections times these streams.")));
    auto* streamsRow = new QWidget;
    auto* streamsLayout = new QHBoxLayout(streamsRow);
    streamsLayout->setContentsMargins(0, 0, 0, 0);
    streamsLayout->addWidget(m_http2Streams);
    auto* concurrencyNote = new QLabel(tr("concurrency = connections × streams"));
    concurrencyNote->setObjectName(QStringLiteral("http2ConcurrencyNote"));
    streamsLayout->addWidget(concurrencyNote, 1);
    addFormRow(form, tr("&Streams per connection:"), streamsRow)->setBuddy(m_http2Streams);

    m_http2WindowBits = new QSpinBox;
    m_http2WindowBits->setObjectName(QStringLiteral("http2WindowBitsSpin"));
    m_http2WindowBits->setToolTip(wrappedToolTip(
        tr("Each stream's flow-control window, 2^bits - 1 bytes (h2load -w, --window-bits).")));
    m_http2WindowBytes = new QLabel;
    addFormRow(form, tr("Stream wi&ndow:"), windowRow(m_http2WindowBits, m_http2WindowBytes))
        ->setBuddy(m_http2WindowBits);

    m_http2ConnectionWindowBits = new QSpinBox;
    m_http2ConnectionWindowBits->setObjectName(QStringLiteral("http2ConnectionWindowBitsSpin"));
    m_http2ConnectionWindowBits->setToolTip(
        wrappedToolTip(tr("The whole connection's flow-control window, 2^bits - 1 bytes "
                          "(h2load -W, --connection-window-bits).")));
    m_http2ConnectionWindowBytes = new QLabel;
    addFormRow(form, tr("C&onnection window:"),
               windowRow(m_http2ConnectionWindowBits, m_http2ConnectionWindowBytes))
        ->setBuddy(m_http2ConnectionWindowBits);

    connect(m_http2, &QCheckBox::toggled, this, &HttpOptionsForm::http2Toggled);
    connect(m_http2Streams, &QSpinBox::valueChanged, this, &HttpOptionsForm::notifyEdited);
    connect(m_http2WindowBits, &QSpinBox::valueChanged, this, &HttpOptionsForm::notifyEdited);
    connect(m_http2ConnectionWindowBits, &QSpinBox::valueChanged, this,
            &HttpOptionsForm::notifyEdited);
    return group;
}

void HttpOptionsForm::http2Toggled(bool on) {
    if (on && !isLoading()) {
        // What HTTP/2 refuses goes, keeping the requests outstanding on each
        // connection: the builder runs N streams as it runs a pipeline of N.
        // One edit, not three, so that no half-changed form is applied.
        const QSignalBlocker streamsBlocker(m_http2Streams);
        const QSignalBlocker pipelineBlocker(m_pipeline);
        const QSignalBlocker http10Blocker(m_http10);
        if (m_pipeline->value() > 1)
            m_http2Streams->setValue(m_pipeline->value());
        m_pipeline->setValue(1);
        m_http10->setChecked(false);
    }
    updateHttp2Fields();
    notifyEdited();
}

void HttpOptionsForm::updateHttp2Fields() {
    const bool on = m_http2->isChecked();
    m_http2Streams->setEnabled(on);
    m_http2WindowBits->setEnabled(on);
    m_http2ConnectionWindowBits->setEnabled(on);
    m_pipeline->setEnabled(!on || m_pipeline->value() > 1);
    m_http10->setEnabled(!on || m_http10->isChecked());
}

void HttpOptionsForm::loadFields(const app::Target& target) {
    const app::HttpOptions& http = target.http;
    m_url->setText(http.url);
    m_address->setText(target.address);
    m_method->setCurrentText(http.method);
    m_headers->setRowCount(0);
    for (const auto& [name, value] : http.headers) {
        const int row = m_headers->rowCount();
        m_headers->insertRow(row);
        m_headers->setItem(row, 0, new QTableWidgetItem(name));
        m_headers->setItem(row, 1, new QTableWidgetItem(value));
    }
    m_bodyFile->setText(http.bodyFile);
    m_contentType->setText(http.contentType);
    m_keepAlive->setChecked(http.keepAlive);
    m_pipeline->setValue(http.pipeline);
    m_acceptVariableLength->setChecked(http.acceptVariableLength);
    m_http10->setChecked(http.http10);
    m_tls->load(http);
    m_http2->setChecked(http.http2);
    m_http2Streams->setValue(http.maxConcurrentStreams);
    m_http2WindowBits->setValue(http.windowBits);
    m_http2ConnectionWindowBits->setValue(http.connectionWindowBits);
    updateHttp2Fields();
    updateTlsFields();
}

void HttpOptionsForm::updateTlsFields() {
    m_tls->setTlsOn(m_url->text().trimmed().startsWith(u"https://", Qt::CaseInsensitive));
}

bool HttpOptionsForm::apply(app::Target& target) {
    m_urlError->setMessage(urlProblem(m_url->text()));
    m_addressError->setMessage(addressProblem(m_address->text(), false));

    const QString method = m_method->currentText().trimmed().toUpper();
    const bool methodOk = !method.isEmpty() && headerNameProblem(method).isEmpty();
    m_methodError->setMessage(methodOk ? QString()
                                       : tr("A method is one word, such as GET or POST"));

    std::vector<std::pair<QString, QString>> headers;
    QString headerProblem;
    for (int row = 0; row < m_headers->rowCount(); ++row) {
        const QTableWidgetItem* name = m_headers->item(row, 0);
        const QTableWidgetItem* value = m_headers->item(row, 1);
        const QString nameText = name ? name->text().trimmed() : QString();
        const QString valueText = value ? value->text().trimmed() : QString();
        if (nameText.isEmpty() && valueText.isEmpty())
            continue; // a row just added and not filled in yet
        if (headerProblem.isEmpty())
            headerProblem = headerNameProblem(nameText);
        if (headerProblem.isEmpty())
            headerProblem = headerValueProblem(nameText, valueText);
        headers.emplace_back(nameText, valueText);
    }
    m_headersError->setMessage(headerProblem);

    const QString bodyFile = checkedFilePath(m_bodyFile, m_bodyFileError);

    // HTTP/2's settings, and the HTTP/1 fields they bear on, by the builder's rule.
    app::HttpOptions candidate = target.http;
    candidate.pipeline = m_pipeline->value();
    candidate.http10 = m_http10->isChecked();
    candidate.http2 = m_http2->isChecked();
    candidate.maxConcurrentStreams = m_http2Streams->value();
    candidate.windowBits = m_http2WindowBits->value();
    candidate.connectionWindowBits = m_http2ConnectionWindowBits->value();
    const auto http2Checked = app::checkHttp2(candidate);
    m_http2Error->setMessage(http2Checked ? QString() : http2Checked.error().message);
    const bool tlsOk = m_tls->apply(candidate);

    if (m_urlError->hasMessage() || m_addressError->hasMessage() || !methodOk ||
        !headerProblem.isEmpty() || m_bodyFileError->hasMessage() || !tlsOk ||
        m_http2Error->hasMessage())
        return false;

    candidate.url = m_url->text().trimmed();
    candidate.method = method;
    candidate.headers = std::move(headers);
    candidate.bodyFile = bodyFile;
    candidate.contentType = m_contentType->text().trimmed();
    candidate.keepAlive = m_keepAlive->isChecked();
    candidate.acceptVariableLength = m_acceptVariableLength->isChecked();
    target.http = std::move(candidate);
    target.address = m_address->text().trimmed();
    applyResponseTimeout(target);
    return true;
}

void HttpOptionsForm::addHeader() {
    const int row = m_headers->rowCount();
    {
        // An empty row is not an edit yet; filling it in is.
        const QSignalBlocker blocker(m_headers);
        m_headers->insertRow(row);
        m_headers->setItem(row, 0, new QTableWidgetItem);
        m_headers->setItem(row, 1, new QTableWidgetItem);
    }
    m_headers->setCurrentCell(row, 0);
    m_headers->setFocus();
    m_headers->editItem(m_headers->item(row, 0));
}

void HttpOptionsForm::removeHeader() {
    const int row = m_headers->currentRow();
    if (row < 0)
        return;
    m_headers->removeRow(row);
    notifyEdited();
}

void HttpOptionsForm::chooseBodyFile() {
    auto* dialog = new QFileDialog(this, tr("Request Body File"), m_bodyFile->text());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) {
        m_bodyFile->setText(path);
        notifyEdited();
    });
    dialog->open();
}

} // namespace loadscope::ui
