#pragma once

#include "app/common/result.h"

#include <QByteArray>
#include <QImage>
#include <QRectF>
#include <QSize>
#include <QString>
#include <optional>

class QChart;
class QPainter;

namespace loadscope::ui {

enum class ChartExportFormat { Png, Svg, Pdf };

// By the file name's suffix (case-insensitive); nullopt for anything else.
std::optional<ChartExportFormat> chartExportFormatForPath(const QString& path);
QString chartExportSuffix(ChartExportFormat format); // "png", "svg", "pdf"

// How a chart is exported. A chart is laid out at its logical size (pixels at
// 96 DPI, what fonts and margins are designed for) and then scaled: a PNG of
// 1600 x 1000 pixels at 192 DPI is the chart laid out at 800 x 500, drawn
// twice as fine, so text keeps its size relative to the plot at any DPI.
struct ChartExportOptions {
    QSize pixelSize{1600, 1000}; // PNG and clipboard: the image; SVG and PDF: at `dpi`
    int dpi = 192;

    QSizeF logicalSize() const;
};

// Paints `chart` laid out at `logicalSize` into `target` of `painter`. The
// chart is resized for the time of the call and put back, so a chart on
// screen can be exported at any size without its view noticing.
void renderChart(QChart* chart, QPainter* painter, const QRectF& target, const QSizeF& logicalSize);

QImage renderChartImage(QChart* chart, const ChartExportOptions& options = {});

// Each writes the file (replacing it), or returns an Io error of one line
// naming the file when it cannot.
app::Result<void> exportChartPng(QChart* chart, const QString& path,
                                 const ChartExportOptions& options);
app::Result<void> exportChartSvg(QChart* chart, const QString& path,
                                 const ChartExportOptions& options);
app::Result<void> exportChartPdf(QChart* chart, const QString& path,
                                 const ChartExportOptions& options);
app::Result<void> exportChart(QChart* chart, const QString& path, ChartExportFormat format,
                              const ChartExportOptions& options);

// Puts the chart on the clipboard as an image.
// Writes an export with app::writeFileAtomically(); the error's message names
// the path ("PATH: cannot be written: no space left on device"), as the
// window shows messages alone.
app::Result<void> writeExportFile(const QString& path, const QByteArray& bytes);

void copyChartToClipboard(QChart* chart, const ChartExportOptions& options = {});

} // namespace loadscope::ui
