#include "ui/shell/import_dialog.h"

#include "app/import/session_importer.h"
#include "app/session/session_document.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/plural.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

namespace loadscope::ui {

ImportDialog::ImportDialog(app::SessionDocument* document, QWidget* parent)
    : QDialog(parent)
    , m_document(document) {
    setWindowTitle(tr("Import Tool Outputs"));
    auto* layout = new QVBoxLayout(this);

    auto* intro = new QLabel(
        tr("Saved outputs of ab, wrk, wrk2, h2load, memtier_benchmark or netperf become "
           "results of a target, one per report at its concurrency, with the numbers as printed."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_files = new QListWidget;
    m_files->setObjectName(QStringLiteral("importFiles"));
    m_files->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_files->setMinimumHeight(100);
    auto* addFiles = new QPushButton(tr("&Add Files…"));
    m_removeFile = new QPushButton(tr("Re&move"));
    auto* fileButtons = new QHBoxLayout;
    fileButtons->addWidget(addFiles);
    fileButtons->addWidget(m_removeFile);
    fileButtons->addStretch();
    auto* filesCell = new QWidget;
    auto* filesColumn = new QVBoxLayout(filesCell);
    filesColumn->setContentsMargins(0, 0, 0, 0);
    filesColumn->addWidget(m_files);
    filesColumn->addLayout(fileButtons);
    addFormRow(form, tr("&Files:"), filesCell)->setBuddy(m_files);

    m_target = new QComboBox;
    m_target->setObjectName(QStringLiteral("importTarget"));
    m_target->setEditable(true);
    m_target->setInsertPolicy(QComboBox::NoInsert);
    for (const app::Target& target : m_document->session().targets)
        m_target->addItem(target.displayName());
    m_target->setToolTip(wrappedToolTip(tr("The target the results belong to. A name that no "
                                           "target has yet creates one.")));
    addFormRow(form, tr("&Target:"), m_target);

    m_mode = new QComboBox;
    m_mode->setObjectName(QStringLiteral("importMode"));
    m_mode->setEditable(true);
    for (app::DeploymentMode mode : app::deploymentModes())
        m_mode->addItem(app::deploymentModeId(mode));
    m_mode->setToolTip(wrappedToolTip(tr("Deployment mode of a new target: one of the list, or "
                                         "your own words.")));
    addFormRow(form, tr("&Mode of a new target:"), m_mode);
    layout->addLayout(form);

    m_error = new FieldError;
    m_error->setObjectName(QStringLiteral("importError"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_error);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_importButton = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_importButton->setDefault(true);
    layout->addWidget(buttons);

    connect(addFiles, &QPushButton::clicked, this, &ImportDialog::addFiles);
    connect(m_removeFile, &QPushButton::clicked, this, [this] {
        qDeleteAll(m_files->selectedItems());
        updateState();
    });
    connect(m_files, &QListWidget::itemSelectionChanged, this, &ImportDialog::updateState);
    connect(m_target, &QComboBox::currentTextChanged, this, &ImportDialog::updateState);
    connect(buttons, &QDialogButtonBox::accepted, this, &ImportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ImportDialog::reject);
    resize(560, 380);
    updateState();
}

void ImportDialog::setFiles(const QStringList& paths) {
    m_files->clear();
    for (const QString& path : paths) {
        auto* item = new QListWidgetItem(QDir::toNativeSeparators(path), m_files);
        item->setData(Qt::UserRole, path);
    }
    updateState();
}

QStringList ImportDialog::files() const {
    QStringList paths;
    for (int row = 0; row < m_files->count(); ++row)
        paths << m_files->item(row)->data(Qt::UserRole).toString();
    return paths;
}

void ImportDialog::setTargetName(const QString& name) {
    m_target->setCurrentText(name);
}

void ImportDialog::setMode(const QString& mode) {
    m_mode->setCurrentText(mode);
}

QString ImportDialog::errorMessage() const {
    return m_error->message();
}

void ImportDialog::addFiles() {
    auto* dialog = new QFileDialog(this, tr("Tool Outputs to Import"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    dialog->setNameFilters({tr("Tool outputs (*.txt *.log *.out *.json)"), tr("All files (*)")});
    connect(dialog, &QFileDialog::filesSelected, this,
            [this](const QStringList& chosen) { setFiles(files() + chosen); });
    dialog->open();
}

void ImportDialog::updateState() {
    const QString name = m_target->currentText().trimmed();
    const auto& targets = m_document->session().targets;
    const bool existing = std::any_of(targets.begin(), targets.end(), [&name](const auto& t) {
        return t.displayName() == name || t.name.trimmed() == name;
    });
    m_mode->setEnabled(!existing);
    m_removeFile->setEnabled(!m_files->selectedItems().isEmpty());
    m_importButton->setEnabled(m_files->count() > 0 && !name.isEmpty());
}

bool ImportDialog::importFiles() {
    const auto contents = app::readImportFiles(files());
    if (!contents) {
        m_error->setMessage(contents.error().toString());
        return false;
    }
    // Imported into a copy first: all or nothing, and the document hears of
    // the target and results through its own edits.
    app::Session copy = m_document->session();
    const QString name = m_target->currentText().trimmed();
    const auto result = app::importIntoSession(
        copy, name, m_mode->isEnabled() ? m_mode->currentText().trimmed() : QString(), *contents);
    if (!result) {
        m_error->setMessage(result.error().toString());
        return false;
    }
    const app::SessionImport& imported = *result;
    m_error->setMessage({});
    if (imported.createdTarget) {
        if (const app::Target* created = copy.findTarget(imported.targetId))
            m_document->addTarget(*created);
    }
    for (const app::ImportedReport& report : imported.reports)
        m_document->putResult(report.result);

    const auto count = imported.reports.size();
    Q_EMIT importFinished(
        plural(count, tr("Imported 1 report"), tr("Imported %1 reports")) +
        (imported.createdTarget ? tr(" into the new target %1") : tr(" into the target %1"))
            .arg(name));
    return true;
}

void ImportDialog::accept() {
    if (importFiles())
        QDialog::accept();
}

} // namespace loadscope::ui
