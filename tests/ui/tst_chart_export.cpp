// Exporting the Compare charts: every chart to a PNG of the chosen size and
// DPI that shows something, an SVG that parses, a PDF of one page; the
// clipboard; the export dialog behind each chart's menu; and the report PDF.

#include "app/session/session_document.h"
#include "compare_test_support.h"
#include "tests/app/session_test_data.h"
#include "ui/common/chart_export.h"
#include "ui/common/chart_export_dialog.h"

#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <optional>

using namespace loadscope;
using test::pageFor;

namespace {

const char* const kAllCharts[] = {"primaryBars",  "transferBars",    "timeBars",
                                  "scalingChart", "p99ScalingChart", "latencyDistributionChart"};

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int pdfPages(const QByteArray& pdf) {
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page[^s]"));
    return int(QString::fromLatin1(pdf).count(page));
}

} // namespace

class TestChartExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void exportsEveryChart_data();
    void exportsEveryChart();
    void copiesChartImageToClipboard();
    void exportDialogWritesTheChosenFile();
    void exportDialogKeepsSuffixAndFormatInStep();
    void exportProposesTheTitleInAFolderThatExists();
    void writesReportPdf();
    void reportToUnwritablePathFails();
};

void TestChartExport::initTestCase() {
    // The export dialog remembers its directory in the settings: not the user's.
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
}

void TestChartExport::cleanup() {
    QGuiApplication::clipboard()->clear();
}

void TestChartExport::exportsEveryChart_data() {
    QTest::addColumn<QString>("chart");
    for (const char* name : kAllCharts)
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestChartExport::exportsEveryChart() {
    QFETCH(QString, chart);
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    auto* panel = page->findChild<ui::ChartPanel*>(chart);
    QVERIFY(panel);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QRectF onScreen = panel->chart()->geometry();
    const QRectF plotOnScreen = panel->chart()->plotArea();

    ui::ChartExportOptions options;
    options.pixelSize = QSize(1200, 750);
    options.dpi = 144;
    const QString png = dir.filePath(chart + QStringLiteral(".png"));
    const app::Result<void> pngWritten = ui::exportChartPng(panel->chart(), png, options);
    QVERIFY2(pngWritten.ok(), qPrintable(test::errorOf(pngWritten)));
    QImage image;
    QVERIFY(image.load(png));
    QCOMPARE(image.size(), QSize(1200, 750));
    QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 144);
    QVERIFY(test::greyVariance(image) > 50);
    QVERIFY(test::inkShare(image) > 0.01);

    const QString svg = dir.filePath(chart + QStringLiteral(".svg"));
    const app::Result<void> svgWritten = ui::exportChartSvg(panel->chart(), svg, options);
    QVERIFY2(svgWritten.ok(), qPrintable(test::errorOf(svgWritten)));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBoxF(), QRectF(0, 0, 800, 500)); // 1200 px at 144 dpi
    const QByteArray svgText = readAll(svg);
    QVERIFY(svgText.contains("<path") || svgText.contains("<polyline"));
    QVERIFY(svgText.contains("<text"));

    const QString pdf = dir.filePath(chart + QStringLiteral(".pdf"));
    const app::Result<void> pdfWritten = ui::exportChartPdf(panel->chart(), pdf, options);
    QVERIFY2(pdfWritten.ok(), qPrintable(test::errorOf(pdfWritten)));
    const QByteArray pdfBytes = readAll(pdf);
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY2(pdfBytes.size() > 4000, QByteArray::number(pdfBytes.size()).constData());
    QCOMPARE(pdfPages(pdfBytes), 1);

    // Exporting leaves the chart on screen as it was.
    QCOMPARE(panel->chart()->geometry(), onScreen);
    QCOMPARE(panel->chart()->plotArea(), plotOnScreen);
}

void TestChartExport::copiesChartImageToClipboard() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    ui::ChartPanel* panel = page->chartPanels().first();
    panel->copyAction()->trigger();
    const QImage image = QGuiApplication::clipboard()->image();
    QCOMPARE(image.size(), ui::ChartExportOptions().pixelSize);
    QVERIFY(test::greyVariance(image) > 50);
}

void TestChartExport::exportDialogWritesTheChosenFile() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    ui::ChartPanel* panel = page->chartPanels().at(3);
    panel->exportAction()->trigger();
    ui::ChartExportDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = panel->findChild<ui::ChartExportDialog*>()) && dialog->isVisible());
    QVERIFY(dialog->isModal()); // open(): window-modal, no nested event loop

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("scaling.png"));
    dialog->findChild<QLineEdit*>(QStringLiteral("exportPath"))->setText(path);
    const QList<QSpinBox*> boxes = dialog->findChildren<QSpinBox*>();
    QCOMPARE(boxes.size(), 3); // width, height, dpi
    boxes[0]->setValue(900);
    boxes[1]->setValue(600);
    boxes[2]->setValue(96);
    dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->click();
    QImage image;
    QTRY_VERIFY(image.load(path));
    QCOMPARE(image.size(), QSize(900, 600));
    QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 96);
    QVERIFY(test::inkShare(image) > 0.01);
}

void TestChartExport::exportDialogKeepsSuffixAndFormatInStep() {
    ui::ChartExportDialog dialog(QStringLiteral("/tmp/chart.png"));
    QCOMPARE(dialog.format(), ui::ChartExportFormat::Png);
    auto* format = dialog.findChild<QComboBox*>(QStringLiteral("exportFormat"));
    format->setCurrentIndex(format->findData(int(ui::ChartExportFormat::Svg)));
    QCOMPARE(dialog.path(), QStringLiteral("/tmp/chart.svg"));
    auto* path = dialog.findChild<QLineEdit*>(QStringLiteral("exportPath"));
    path->clear();
    QTest::keyClicks(path, QStringLiteral("/tmp/report.pdf"));
    QCOMPARE(dialog.format(), ui::ChartExportFormat::Pdf);
    QCOMPARE(dialog.options().pixelSize, ui::ChartExportOptions().pixelSize);
}

// The file proposed is named as the chart is titled (not the widget's name), in a folder
// that exists even when the one remembered is gone.
void TestChartExport::exportProposesTheTitleInAFolderThatExists() {
    QSettings().setValue(QStringLiteral("export/chartDirectory"),
                         QStringLiteral("/nonexistent/charts/gone"));
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    ui::ChartPanel* panel = page->chartPanels().at(0);
    QCOMPARE(panel->chart()->title(), QStringLiteral("Requests/s at c=10"));
    panel->exportAction()->trigger();
    ui::ChartExportDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = panel->findChild<ui::ChartExportDialog*>()) && dialog->isVisible());
    const QFileInfo proposed(dialog->path());
    QVERIFY2(proposed.dir().exists(), qPrintable(proposed.absolutePath()));
    QCOMPARE(proposed.fileName(), QStringLiteral("Requests-s-at-c=10.png"));
    dialog->reject();
    QSettings().remove(QStringLiteral("export/chartDirectory"));
}

void TestChartExport::writesReportPdf() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    std::optional<app::Result<void>> written;
    QCoro::connect(page->exportReportPdf(path), page.get(),
                   [&written](const app::Result<void>& result) { written = result; });
    QTRY_VERIFY(written.has_value());
    QVERIFY2(written->ok(), qPrintable(test::errorOf(*written)));
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY2(pdf.size() > 20000, QByteArray::number(pdf.size()).constData());
    // The charts, then the table as the page shows it: its two rows of requests/s at c=10.
    QCOMPARE(pdfPages(pdf), 2);
    // With every row shown, the failed-share rows carry it onto a second page.
    for (const char* picker : {"concurrencyCombo", "metricCombo"}) {
        auto* combo = page->findChild<QComboBox*>(QString::fromLatin1(picker));
        combo->setCurrentIndex(combo->findData(-1));
        Q_EMIT combo->activated(combo->currentIndex());
    }
    written.reset();
    QCoro::connect(page->exportReportPdf(path), page.get(),
                   [&written](const app::Result<void>& result) { written = result; });
    QTRY_VERIFY(written.has_value());
    QVERIFY2(written->ok(), qPrintable(test::errorOf(*written)));
    QCOMPARE(pdfPages(readAll(path)), 3);
}

void TestChartExport::reportToUnwritablePathFails() {
    app::SessionDocument document;
    document.reset(test::twoTargetSession());
    const auto page = pageFor(document);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("missing/dir/report.pdf"));
    std::optional<app::Result<void>> written;
    QCoro::connect(page->exportReportPdf(path), page.get(),
                   [&written](const app::Result<void>& result) { written = result; });
    QTRY_VERIFY(written.has_value());
    QVERIFY(!written->ok());
    QCOMPARE(written->error().code, app::ErrorCode::Io);
    QVERIFY2(written->error().message.contains(QStringLiteral("report.pdf")),
             qPrintable(written->error().message));
    QVERIFY(!QFile::exists(path));
}

QTEST_MAIN(TestChartExport)
#include "tst_chart_export.moc"
