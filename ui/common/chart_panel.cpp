#include "ui/common/chart_panel.h"

#include "ui/common/background_settings.h"
#include "ui/common/chart_export.h"
#include "ui/common/chart_export_dialog.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
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

QString ChartPanel::suggestedExportPath() const {
    // A folder that is there: the last one exported into, else Pictures, else home.
    QString directory = settings::value(kDirectoryKey).toString();
    for (const QString& candidate :
         {directory, QStandardPaths::writableLocation(QStandardPaths::PicturesLocation),
          QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), QDir::homePath()}) {
        if (!candidate.isEmpty() && QFileInfo(candidate).isDir()) {
            directory = candidate;
            break;
        }
    }
    // The file named as the chart is ("Requests-s at c=50 - host vs proxy"), in the words a
    // file system takes everywhere; the stem only for a chart without a title.
    static const QRegularExpression unsafe(QStringLiteral("[^\\w.,=+()-]+"));
    QString name = chart()->title().replace(QChar(0x2014), QLatin1Char('-'));
    name = name.replace(unsafe, QStringLiteral(" "))
               .simplified()
               .replace(QLatin1Char(' '), QLatin1Char('-'));
    if (name.isEmpty())
        name = m_fileStem;
    return QDir(directory).filePath(name.left(80) + QStringLiteral(".png"));
}

void ChartPanel::showExportDialog() {
    auto* dialog = new ChartExportDialog(suggestedExportPath(), this);
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
        settings::setValue(kDirectoryKey, QFileInfo(path).absolutePath());
    });
    dialog->open();
}

} // namespace loadscope::ui
