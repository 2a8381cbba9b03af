#include "ui/common/chart_export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace loadscope::ui {

ChartExportDialog::ChartExportDialog(const QString& suggestedPath, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Export Chart"));

    m_path = new QLineEdit(QDir::toNativeSeparators(suggestedPath));
    m_path->setObjectName(QStringLiteral("exportPath"));
    auto* browse = new QPushButton(tr("&Browse…"));
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);

    m_format = new QComboBox;
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->addItem(tr("PNG image"), int(ChartExportFormat::Png));
    m_format->addItem(tr("SVG drawing"), int(ChartExportFormat::Svg));
    m_format->addItem(tr("PDF document"), int(ChartExportFormat::Pdf));
    if (const auto format = chartExportFormatForPath(suggestedPath))
        m_format->setCurrentIndex(m_format->findData(int(*format)));

    const ChartExportOptions defaults;
    m_width = new QSpinBox;
    m_width->setRange(100, 20000);
    m_width->setSuffix(tr(" px"));
    m_width->setValue(defaults.pixelSize.width());
    m_height = new QSpinBox;
    m_height->setRange(100, 20000);
    m_height->setSuffix(tr(" px"));
    m_height->setValue(defaults.pixelSize.height());
    m_dpi = new QSpinBox;
    m_dpi->setRange(48, 1200);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setValue(defaults.dpi);
    m_dpi->setToolTip(tr("Pixels per inch: at 192 dpi a chart is drawn twice as fine as on a "
                         "96 dpi screen, with text of the same printed size."));
    m_summary = new QLabel;
    m_summary->setWordWrap(true);

    auto* pathLabel = new QLabel(tr("&File:"));
    pathLabel->setBuddy(m_path);
    auto* form = new QFormLayout;
    form->addRow(pathLabel, pathRow);
    form->addRow(tr("F&ormat:"), m_format);
    form->addRow(tr("&Width:"), m_width);
    form->addRow(tr("&Height:"), m_height);
    form->addRow(tr("&Resolution:"), m_dpi);
    form->addRow(m_summary);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ChartExportDialog::browse);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ChartExportDialog::formatChosen);
    connect(m_path, &QLineEdit::textEdited, this, &ChartExportDialog::pathEdited);
    for (QSpinBox* box : {m_width, m_height, m_dpi})
        connect(box, &QSpinBox::valueChanged, this, &ChartExportDialog::updateSummary);
    connect(m_path, &QLineEdit::textChanged, this, [this, buttons] {
        buttons->button(QDialogButtonBox::Save)->setEnabled(!m_path->text().trimmed().isEmpty());
    });
    setMinimumWidth(460);
    updateSummary();
}

QString ChartExportDialog::path() const {
    return QDir::fromNativeSeparators(m_path->text().trimmed());
}

ChartExportFormat ChartExportDialog::format() const {
    return ChartExportFormat(m_format->currentData().toInt());
}

ChartExportOptions ChartExportDialog::options() const {
    ChartExportOptions options;
    options.pixelSize = QSize(m_width->value(), m_height->value());
    options.dpi = m_dpi->value();
    return options;
}

void ChartExportDialog::browse() {
    // Non-modal towards the event loop: the answer arrives as a signal.
    auto* chooser = new QFileDialog(this, tr("Export Chart"), path());
    chooser->setAttribute(Qt::WA_DeleteOnClose);
    chooser->setAcceptMode(QFileDialog::AcceptSave);
    chooser->setNameFilters(
        {tr("PNG image (*.png)"), tr("SVG drawing (*.svg)"), tr("PDF document (*.pdf)")});
    chooser->selectNameFilter(chooser->nameFilters().value(m_format->currentIndex()));
    chooser->setDefaultSuffix(chartExportSuffix(format()));
    connect(chooser, &QFileDialog::fileSelected, this, [this](const QString& file) {
        m_path->setText(QDir::toNativeSeparators(file));
        pathEdited();
    });
    chooser->open();
}

void ChartExportDialog::formatChosen() {
    // Keep the file name's suffix in step with the format.
    const QString suffix = chartExportSuffix(format());
    QString file = path();
    if (!file.isEmpty()) {
        const QFileInfo info(file);
        file = info.dir().filePath(info.completeBaseName() + QLatin1Char('.') + suffix);
        m_path->setText(QDir::toNativeSeparators(file));
    }
    updateSummary();
}

void ChartExportDialog::pathEdited() {
    if (const auto chosen = chartExportFormatForPath(path())) {
        const QSignalBlocker blocker(m_format);
        m_format->setCurrentIndex(m_format->findData(int(*chosen)));
    }
    updateSummary();
}

void ChartExportDialog::updateSummary() {
    const ChartExportOptions chosen = options();
    const QSizeF logical = chosen.logicalSize();
    const double inchesWide = chosen.pixelSize.width() / double(chosen.dpi);
    m_summary->setText(tr("The chart is laid out at %1 × %2 and printed %3 in (%4 cm) wide.")
                           .arg(qRound(logical.width()))
                           .arg(qRound(logical.height()))
                           .arg(inchesWide, 0, 'f', 1)
                           .arg(inchesWide * 2.54, 0, 'f', 1));
}

} // namespace loadscope::ui
