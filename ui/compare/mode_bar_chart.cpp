#include "ui/compare/mode_bar_chart.h"

#include "ui/common/chart_annotations.h"
#include "ui/common/chart_style.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QLegend>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

namespace loadscope::ui {

ModeBarChart::ModeBarChart() {
    applyChartStyle(this);
    legend()->hide(); // the categories name the modes
    m_series = new QStackedBarSeries;
    m_series->setBarWidth(0.6);
    addSeries(m_series);
    m_categories = new QBarCategoryAxis;
    m_values = new QValueAxis;
    applyAxisStyle(m_categories, QString());
    applyAxisStyle(m_values, QString());
    m_categories->setGridLineVisible(false);
    addAxis(m_categories, Qt::AlignBottom);
    addAxis(m_values, Qt::AlignLeft);
    m_series->attachAxis(m_categories);
    m_series->attachAxis(m_values);
    m_annotations = new ChartAnnotations(this);
    connect(m_series, &QAbstractBarSeries::hovered, this,
            [this](bool inside, int index, QBarSet* set) {
                const int bar = int(m_series->barSets().indexOf(set));
                // Each set is one mode, non-zero only at its own category.
                if (!inside || bar != index || bar < 0 || size_t(bar) >= m_data.bars.size()) {
                    QToolTip::hideText();
                    return;
                }
                QToolTip::showText(QCursor::pos(), barToolTip(m_data.bars[size_t(bar)]));
            });
}

QString ModeBarChart::barToolTip(const ModeBar& bar) const {
    QString text =
        QStringLiteral("<b>%1</b>: %2").arg(bar.name.toHtmlEscaped(), formatValue(bar.mean));
    if (bar.ciLow && bar.ciHigh)
        text +=
            tr("<br>95% interval %1 to %2").arg(formatValue(*bar.ciLow), formatValue(*bar.ciHigh));
    text += tr("<br>%n run(s)", nullptr, bar.repetitions);
    if (!bar.note.isEmpty())
        text += QStringLiteral("<br>") +
                bar.note.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

void ModeBarChart::setData(const ModeBarChartData& data) {
    m_data = data;
    const auto count = qsizetype(data.bars.size());
    setTitle(data.emptyText.isEmpty() ? data.title
                                      : QStringLiteral("%1 — %2").arg(data.title, data.emptyText));
    m_values->setTitleText(data.axisTitle);

    // Category names must be unique; two modes named alike get a number.
    QStringList names;
    for (const ModeBar& bar : data.bars) {
        QString name = bar.name;
        for (int n = 2; names.contains(name); ++n)
            name = QStringLiteral("%1 (%2)").arg(bar.name).arg(n);
        names << name;
    }

    QList<QBarSet*> sets;
    QList<ChartAnnotations::ErrorBar> errorBars;
    QList<ChartAnnotations::Label> labels;
    double top = 0;
    for (qsizetype i = 0; i < count; ++i) {
        const ModeBar& bar = data.bars[size_t(i)];
        auto* set = new QBarSet(names[i]);
        set->setColor(bar.colour);
        set->setBorderColor(bar.colour.darker(120));
        QList<qreal> values(count, 0.0);
        values[i] = bar.mean;
        set->append(values);
        sets << set;

        double labelAt = bar.mean;
        if (bar.ciLow && bar.ciHigh) {
            errorBars << ChartAnnotations::ErrorBar{m_series, double(i), *bar.ciLow, *bar.ciHigh,
                                                    QColor(0x30, 0x30, 0x30)};
            labelAt = std::max(labelAt, *bar.ciHigh);
        }
        labels << ChartAnnotations::Label{m_series, double(i),    labelAt, formatValue(bar.mean),
                                          bar.note, bar.noteStyle};
        top = std::max(top, labelAt);
    }

    m_series->clear();
    m_series->append(sets);
    m_categories->setCategories(names);
    // Room above the tallest bar for its two or three lines of label.
    setZeroBasedRange(m_values, top * 1.3);
    m_annotations->setErrorBars(std::move(errorBars));
    m_annotations->setLabels(std::move(labels));
}

} // namespace loadscope::ui
