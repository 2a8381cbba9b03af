#include "ui/common/chart_export.h"

#include "app/common/atomic_file_writer.h"

#include <QBuffer>
#include <QChart>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <cmath>

namespace loadscope::ui {

namespace {

constexpr double kLogicalDpi = 96;

app::Error cannotWrite(const QString& path, const QString& why) {
    return app::makeError(
        app::ErrorCode::Io,
        QObject::tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), why), path);
}

void setChartGeometry(QChart* chart, const QRectF& geometry) {
    chart->setGeometry(geometry);
    // The chart lays itself out later, on a posted event; the plot area (and
    // with it every mapped position) must be right before painting now.
    if (QGraphicsLayout* layout = chart->layout())
        layout->activate();
}

} // namespace

app::Result<void> writeExportFile(const QString& path, const QByteArray& bytes) {
    if (bytes.isEmpty())
        return cannotWrite(path, QObject::tr("nothing was rendered"));
    if (app::Result<void> written = app::writeFileAtomically(path, bytes); !written)
        return app::makeError(app::ErrorCode::Io, written.error().toString(), path);
    return {};
}

std::optional<ChartExportFormat> chartExportFormatForPath(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return ChartExportFormat::Png;
    if (suffix == QLatin1String("svg"))
        return ChartExportFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return ChartExportFormat::Pdf;
    return std::nullopt;
}

QString chartExportSuffix(ChartExportFormat format) {
    switch (format) {
    case ChartExportFormat::Png:
        break;
    case ChartExportFormat::Svg:
        return QStringLiteral("svg");
    case ChartExportFormat::Pdf:
        return QStringLiteral("pdf");
    }
    return QStringLiteral("png");
}

QSizeF ChartExportOptions::logicalSize() const {
    const double scale = kLogicalDpi / (dpi > 0 ? dpi : kLogicalDpi);
    return QSizeF(pixelSize.width() * scale, pixelSize.height() * scale);
}

void renderChart(QChart* chart, QPainter* painter, const QRectF& target,
                 const QSizeF& logicalSize) {
    QGraphicsScene* scene = chart->scene();
    QGraphicsScene ownScene;
    if (!scene) {
        ownScene.addItem(chart);
        scene = &ownScene;
    }
    const QRectF saved = chart->geometry();
    setChartGeometry(chart, QRectF(saved.topLeft(), logicalSize));
    const QRectF source(chart->mapToScene(QPointF(0, 0)), logicalSize);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setRenderHint(QPainter::TextAntialiasing);
    painter->setRenderHint(QPainter::SmoothPixmapTransform);
    scene->render(painter, target, source, Qt::IgnoreAspectRatio);
    painter->restore();
    setChartGeometry(chart, saved);
    if (scene == &ownScene)
        ownScene.removeItem(chart);
}

QImage renderChartImage(QChart* chart, const ChartExportOptions& options) {
    const QSize size = options.pixelSize.expandedTo(QSize(1, 1));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    const int dotsPerMeter = int(std::lround(options.dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QPainter painter(&image);
    renderChart(chart, &painter, QRectF(QPointF(0, 0), QSizeF(size)), options.logicalSize());
    painter.end();
    return image;
}

app::Result<void> exportChartPng(QChart* chart, const QString& path,
                                 const ChartExportOptions& options) {
    const QImage image = renderChartImage(chart, options);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        return cannotWrite(path, QObject::tr("the PNG image cannot be encoded"));
    return writeExportFile(path, buffer.data());
}

app::Result<void> exportChartSvg(QChart* chart, const QString& path,
                                 const ChartExportOptions& options) {
    const QSizeF logical = options.logicalSize();
    const QSize size = logical.toSize().expandedTo(QSize(1, 1));
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setResolution(int(kLogicalDpi));
    generator.setTitle(chart->title());
    generator.setDescription(QObject::tr("Exported from Loadscope"));
    QPainter painter;
    if (!painter.begin(&generator)) {
        return cannotWrite(path, QObject::tr("cannot start the SVG document"));
    }
    renderChart(chart, &painter, QRectF(QPointF(0, 0), QSizeF(size)), logical);
    painter.end();

    return writeExportFile(path, buffer.data());
}

app::Result<void> exportChartPdf(QChart* chart, const QString& path,
                                 const ChartExportOptions& options) {
    const QSizeF logical = options.logicalSize();
    // A page exactly the chart's size, so it can be placed in a document as is.
    const QSizeF points(logical.width() * 72 / kLogicalDpi, logical.height() * 72 / kLogicalDpi);
    // Rendered in memory, then written with the one checked writer.
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Loadscope"));
        writer.setTitle(chart->title());
        writer.setResolution(300);
        writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point), QPageLayout::Portrait,
                                         QMarginsF(0, 0, 0, 0)));
        QPainter painter;
        if (!painter.begin(&writer)) {
            return cannotWrite(path, QObject::tr("cannot start the PDF document"));
        }
        const QRectF target(QPointF(0, 0), QSizeF(writer.width(), writer.height()));
        renderChart(chart, &painter, target, logical);
        painter.end();
    }
    return writeExportFile(path, buffer.data());
}

app::Result<void> exportChart(QChart* chart, const QString& path, ChartExportFormat format,
                              const ChartExportOptions& options) {
    switch (format) {
    case ChartExportFormat::Png:
        break;
    case ChartExportFormat::Svg:
        return exportChartSvg(chart, path, options);
    case ChartExportFormat::Pdf:
        return exportChartPdf(chart, path, options);
    }
    return exportChartPng(chart, path, options);
}

void copyChartToClipboard(QChart* chart, const ChartExportOptions& options) {
    if (QClipboard* clipboard = QGuiApplication::clipboard())
        clipboard->setImage(renderChartImage(chart, options));
}

} // namespace loadscope::ui
