#include "ui/compare/path_breakdown_chart.h"

#include "ui/common/chart_style.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QLegend>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace loadscope::ui {

PathBreakdownChart::PathBreakdownChart() {
    applyChartStyle(this);
    legend()->setVisible(true);
    legend()->setAlignment(Qt::AlignRight);
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
    connect(m_series, &QAbstractBarSeries::hovered, this,
            [this](bool inside, int index, QBarSet* set) {
                const qsizetype segment = m_series->barSets().indexOf(set);
                if (!inside || segment < 0 || size_t(segment) >= m_data.segments.size() ||
                    index < 0 || size_t(index) >= m_data.modes.size()) {
                    QToolTip::hideText();
                    return;
                }
                QToolTip::showText(QCursor::pos(),
                                   segmentToolTip(m_data.segments[size_t(segment)], index));
            });
}

QString PathBreakdownChart::segmentToolTip(const PathSegment& segment, int mode) const {
    QString text =
        QStringLiteral("<b>%1</b>, %2: %3 µs per request")
            .arg(m_data.modes[size_t(mode)].toHtmlEscaped(), segment.label.toHtmlEscaped(),
                 formatValue(segment.values[size_t(mode)]));
    const auto& low = segment.ciLow[size_t(mode)];
    const auto& high = segment.ciHigh[size_t(mode)];
    if (low && high)
        text += tr("<br>95% interval %1 to %2").arg(formatValue(*low), formatValue(*high));
    return text;
}

void PathBreakdownChart::setData(const PathBreakdownData& data) {
    m_data = data;
    setTitle(data.emptyText.isEmpty() ? data.title
                                      : QStringLiteral("%1 — %2").arg(data.title, data.emptyText));
    m_values->setTitleText(data.axisTitle);
    QStringList names;
    for (const QString& mode : data.modes) {
        QString name = mode;
        for (int n = 2; names.contains(name); ++n)
            name = QStringLiteral("%1 (%2)").arg(mode).arg(n);
        names << name;
    }
    QList<QBarSet*> sets;
    std::vector<double> above(data.modes.size(), 0);
    std::vector<double> below(data.modes.size(), 0);
    for (const PathSegment& segment : data.segments) {
        auto* set = new QBarSet(segment.label);
        set->setColor(segment.colour);
        set->setBorderColor(segment.colour.darker(130));
        for (size_t i = 0; i < segment.values.size(); ++i) {
            const double value = segment.values[i];
            set->append(value);
            (value >= 0 ? above[i] : below[i]) += value;
        }
        sets << set;
    }
    m_series->clear();
    m_series->append(sets);
    m_categories->setCategories(names);
    const double top = above.empty() ? 0 : *std::max_element(above.begin(), above.end());
    const double bottom = below.empty() ? 0 : *std::min_element(below.begin(), below.end());
    if (bottom < 0 && top > 0) {
        // A difference both ways: the step of the larger side, as many steps
        // below 0 as the smaller side needs, so that 0 stays a tick.
        setZeroBasedRange(m_values, std::max(top, -bottom) * 1.1);
        const int intervals = m_values->tickCount() - 1;
        const double step = m_values->max() / intervals;
        const double up = std::ceil(top * 1.1 / step);
        const double down = std::ceil(-bottom * 1.1 / step);
        m_values->setTickCount(int(up + down) + 1);
        m_values->setRange(-down * step, up * step);
    } else if (bottom < 0) {
        setZeroBasedRange(m_values, -bottom * 1.1);
        m_values->setRange(-m_values->max(), 0);
    } else {
        setZeroBasedRange(m_values, top * 1.1);
    }
}

} // namespace loadscope::ui
