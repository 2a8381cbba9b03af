#include "ui/common/chart_panel.h"

#include "ui/common/chart_export.h"
#include "ui/common/chart_export_dialog.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

namespace loadscope::ui {

namespace {

const QString kDirectoryKey = QStringLiteral("export/chartDirectory");

} // namespace

ChartPanel::ChartPanel(QChart* chart, const QString& fileStem, QWidget* parent)
    : QWidget(parent)
    , m_fileStem(fileStem) {
    m_view = new QChartView(chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setMinimumSize(240, 180);
    // The view itself takes no keyboard focus; the actions are reached
    // through the page's controls and the menu button.

    m_copy =
        new QAction(QIcon::fromTheme(QStringLiteral("edit-copy")), tr("&Copy Chart Image"), this);
    m_copy->setToolTip(tr("Copy the chart to the clipboard as an image"));
    m_export = new QAction(QIcon::fromTheme(QStringLiteral("document-export")),
                           tr("&Export Chart…"), this);
    m_export->setToolTip(tr("Save the chart as PNG, SVG or PDF"));
    connect(m_copy, &QAction::triggered, this, &ChartPanel::copyImage);
    connect(m_export, &QAction::triggered, this, &ChartPanel::showExportDialog);
    m_view->addAction(m_copy);
    m_view->addAction(m_export);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    m_menuButton = new QToolButton(this);
    m_menuButton->setObjectName(QStringLiteral("chartMenuButton"));
    m_menuButton->setText(QStringLiteral("⋯"));
    m_menuButton->setToolTip(tr("Copy or export this chart"));
    m_menuButton->setAutoRaise(true);
    m_menuButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_menuButton);
    menu->addAction(m_copy);
    menu->addAction(m_export);
    m_menuButton->setMenu(menu);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    placeMenuButton();
}

QChart* ChartPanel::chart() const {
    return m_view->chart();
}

void ChartPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeMenuButton();
}

void ChartPanel::placeMenuButton() {
    const QSize hint = m_menuButton->sizeHint();
    m_menuButton->setGeometry(width() - hint.width() - 2, 2, hint.width(), hint.height());
    m_menuButton->raise();
}

void ChartPanel::copyImage() {
    copyChartToClipboard(chart());
}

void ChartPanel::showExportDialog() {
    QSettings settings;
    QString directory = settings.value(kDirectoryKey).toString();
    if (directory.isEmpty())
        directory = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    auto* dialog =
        new ChartExportDialog(QDir(directory).filePath(m_fileStem + QStringLiteral(".png")), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QString path = dialog->path();
        const app::Result<void> written =
            exportChart(chart(), path, dialog->format(), dialog->options());
        if (!written) {
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot Export Chart"),
                                        written.error().message, QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
            return;
        }
        QSettings().setValue(kDirectoryKey, QFileInfo(path).absolutePath());
    });
    dialog->open();
}

} // namespace loadscope::ui
