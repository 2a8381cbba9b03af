#include "ui/compare/compare_report.h"

#include "ui/common/chart_export.h"

#include <QAbstractItemModel>
#include <QBuffer>
#include <QChart>
#include <QDir>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <algorithm>

namespace loadscope::ui {

namespace {

constexpr int kResolution = 300;
// Charts are laid out as on a screen of this size and scaled onto the page.
constexpr QSizeF kChartLogicalSize(520, 380);

class ReportPainter {
public:
    ReportPainter(QPdfWriter* writer, QPainter* painter)
        : m_writer(writer)
        , m_painter(painter)
        , m_page(0, 0, writer->width(), writer->height()) {}

    // Points to device pixels.
    double pt(double points) const { return points * kResolution / 72.0; }
    QRectF page() const { return m_page; }

    void newPage() { m_writer->newPage(); }

    double drawHeader(const CompareReport& report) {
        QFont title;
        title.setPointSizeF(16);
        title.setBold(true);
        m_painter->setFont(title);
        m_painter->setPen(Qt::black);
        const QFontMetricsF titleMetrics(title, m_writer);
        double y = titleMetrics.ascent();
        m_painter->drawText(QPointF(0, y), report.title);
        y += titleMetrics.descent() + pt(4);
        QFont sub;
        sub.setPointSizeF(9);
        m_painter->setFont(sub);
        m_painter->setPen(QColor(0x50, 0x50, 0x50));
        const QFontMetricsF subMetrics(sub, m_writer);
        for (const QString& line : report.subtitle) {
            y += subMetrics.ascent();
            m_painter->drawText(QPointF(0, y), line);
            y += subMetrics.descent() + pt(1);
        }
        return y + pt(8);
    }

    void drawCharts(const QList<QChart*>& charts, double top) {
        constexpr int columns = 3;
        const double gap = pt(6);
        const double width = (m_page.width() - gap * (columns - 1)) / columns;
        // As tall as the page allows, up to the screen's proportions.
        const qsizetype rows = (charts.size() + columns - 1) / columns;
        const double room = (m_page.height() - top - gap * double(rows - 1)) / double(rows);
        const double height =
            std::clamp(room, width * 0.5,
                       width * kChartLogicalSize.height() / kChartLogicalSize.width() * 1.3);
        const QSizeF logical(kChartLogicalSize.width(), kChartLogicalSize.width() * height / width);
        double y = top;
        for (qsizetype i = 0; i < charts.size(); ++i) {
            const qsizetype column = i % columns;
            if (column == 0 && i > 0)
                y += height + gap;
            if (y + height > m_page.height()) {
                newPage();
                y = 0;
            }
            const QRectF target(double(column) * (width + gap), y, width, height);
            renderChart(charts[i], m_painter, target, logical);
            m_painter->setPen(QPen(QColor(0xd0, 0xd0, 0xd0), pt(0.5)));
            m_painter->setBrush(Qt::NoBrush);
            m_painter->drawRect(target);
        }
    }

    void drawTable(const QAbstractItemModel& model, const QString& caption) {
        const int columns = model.columnCount();
        const int rows = model.rowCount();
        if (columns == 0)
            return;
        QFont font;
        font.setPointSizeF(7.5);
        QFont bold = font;
        bold.setBold(true);
        const QFontMetricsF metrics(font, m_writer);
        const QFontMetricsF boldMetrics(bold, m_writer);
        const double padding = pt(4);
        const double rowHeight = metrics.height() + pt(3);

        // Columns as wide as their widest text, scaled down to the page if need be.
        std::vector<double> widths(size_t(columns), 0);
        for (int c = 0; c < columns; ++c) {
            widths[size_t(c)] =
                boldMetrics.horizontalAdvance(model.headerData(c, Qt::Horizontal).toString());
            for (int r = 0; r < rows; ++r) {
                const QString text = model.index(r, c).data().toString();
                widths[size_t(c)] = std::max(widths[size_t(c)], metrics.horizontalAdvance(text));
            }
            // PDF glyphs come out a little wider than the metrics say.
            widths[size_t(c)] = widths[size_t(c)] * 1.06 + 2 * padding;
        }
        double total = 0;
        for (double w : widths)
            total += w;
        const double scale = total > m_page.width() ? m_page.width() / total : 1.0;
        for (double& w : widths)
            w *= scale;

        newPage();
        double y = drawCaption(caption);
        y = drawTableHeader(model, widths, bold, y, rowHeight);
        for (int r = 0; r < rows; ++r) {
            if (y + rowHeight > m_page.height()) {
                newPage();
                y = drawTableHeader(model, widths, bold, 0, rowHeight);
            }
            if (r % 2 == 1)
                m_painter->fillRect(QRectF(0, y, total * scale, rowHeight),
                                    QColor(0xf4, 0xf4, 0xf4));
            double x = 0;
            for (int c = 0; c < columns; ++c) {
                const QModelIndex index = model.index(r, c);
                QFont cellFont = font;
                if (const QVariant f = index.data(Qt::FontRole); f.canConvert<QFont>()) {
                    const QFont styled = f.value<QFont>();
                    cellFont.setBold(styled.bold());
                    cellFont.setItalic(styled.italic());
                }
                m_painter->setFont(cellFont);
                m_painter->setPen(Qt::black);
                const auto alignment = index.data(Qt::TextAlignmentRole).value<Qt::Alignment>() &
                                       Qt::AlignHorizontal_Mask;
                const QRectF cell(x + padding, y, widths[size_t(c)] - 2 * padding, rowHeight);
                m_painter->drawText(cell,
                                    int(alignment ? alignment : Qt::AlignLeft) | Qt::AlignVCenter,
                                    index.data().toString());
                x += widths[size_t(c)];
            }
            y += rowHeight;
        }
    }

private:
    double drawCaption(const QString& caption) {
        QFont font;
        font.setPointSizeF(12);
        font.setBold(true);
        m_painter->setFont(font);
        m_painter->setPen(Qt::black);
        const QFontMetricsF metrics(font, m_writer);
        m_painter->drawText(QPointF(0, metrics.ascent()), caption);
        return metrics.height() + pt(6);
    }

    double drawTableHeader(const QAbstractItemModel& model, const std::vector<double>& widths,
                           const QFont& bold, double y, double rowHeight) {
        m_painter->setFont(bold);
        m_painter->setPen(Qt::black);
        double x = 0;
        const double padding = pt(4);
        for (int c = 0; c < model.columnCount(); ++c) {
            const QRectF cell(x + padding, y, widths[size_t(c)] - 2 * padding, rowHeight);
            // Titles line up with their column's values.
            Qt::Alignment alignment = Qt::AlignLeft;
            if (model.rowCount() > 0)
                alignment = model.index(0, c).data(Qt::TextAlignmentRole).value<Qt::Alignment>() &
                            Qt::AlignHorizontal_Mask;
            m_painter->drawText(cell, int(alignment ? alignment : Qt::AlignLeft) | Qt::AlignVCenter,
                                model.headerData(c, Qt::Horizontal).toString());
            x += widths[size_t(c)];
        }
        m_painter->setPen(QPen(Qt::black, pt(0.6)));
        m_painter->drawLine(QPointF(0, y + rowHeight), QPointF(x, y + rowHeight));
        return y + rowHeight + pt(1);
    }

    QPdfWriter* m_writer;
    QPainter* m_painter;
    QRectF m_page;
};

} // namespace

app::Result<void> writeCompareReportPdf(const CompareReport& report, const QString& path) {
    // Rendered in memory, then written with the one checked writer: a failed
    // write never leaves half a report where a good one was.
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Loadscope"));
        writer.setTitle(report.title);
        writer.setResolution(kResolution);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                         QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
        QPainter painter;
        if (!painter.begin(&writer))
            return app::makeError(app::ErrorCode::Io,
                                  QObject::tr("cannot write %1: cannot start the PDF document")
                                      .arg(QDir::toNativeSeparators(path)),
                                  path);
        ReportPainter pages(&writer, &painter);
        const double top = pages.drawHeader(report);
        pages.drawCharts(report.charts, top);
        if (report.table)
            pages.drawTable(*report.table, QObject::tr("Comparison table"));
        painter.end();
    }
    return writeExportFile(path, buffer.data());
}

} // namespace loadscope::ui
