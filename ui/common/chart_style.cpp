#include "ui/common/chart_style.h"

#include "app/session/target.h"

#include <QAbstractAxis>
#include <QChart>
#include <QFont>
#include <QLegend>
#include <QLocale>
#include <QValueAxis>
#include <cmath>

namespace loadscope::ui {

namespace {

// The smallest of 1, 2, 2.5, 5 x 10^k that is at least `value`.
double roundUp(double value) {
    if (value <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double step : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
        if (step * magnitude >= value * (1 - 1e-9))
            return step * magnitude;
    }
    return 10 * magnitude;
}

} // namespace

void applyChartStyle(QChart* chart) {
    chart->setTheme(QChart::ChartThemeLight);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setDropShadowEnabled(false);
    chart->setMargins(QMargins(6, 4, 6, 4));
    QFont title = chart->titleFont();
    title.setBold(true);
    title.setPointSizeF(10);
    chart->setTitleFont(title);
    // Axis numbers in the user's locale, with digit grouping: 200,000 reads
    // at a glance, 200000 does not.
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    chart->setLocale(locale);
    chart->setLocalizeNumbers(true);
    chart->legend()->setAlignment(Qt::AlignBottom);
    QFont legend = chart->legend()->font();
    legend.setPointSizeF(8.5);
    chart->legend()->setFont(legend);
}

void applyAxisStyle(QAbstractAxis* axis, const QString& title) {
    axis->setTitleText(title);
    QFont titleFont = axis->titleFont();
    titleFont.setPointSizeF(8.5);
    titleFont.setBold(false);
    axis->setTitleFont(titleFont);
    QFont labels = axis->labelsFont();
    labels.setPointSizeF(8);
    axis->setLabelsFont(labels);
    axis->setGridLineColor(QColor(0xe0, 0xe0, 0xe0));
}

QColor targetColour(const app::Target& target) {
    const QColor colour = QColor::fromString(target.colour);
    return colour.isValid() ? colour : QColor(0x80, 0x80, 0x80);
}

void setZeroBasedRange(QValueAxis* axis, double maximum) {
    const double top = roundUp(maximum > 0 ? maximum : 1);
    // Four to six intervals of a round step: 0, 0.5, 1.0, 1.5 or 0, 20, 40, 60.
    const double magnitude = std::pow(10.0, std::floor(std::log10(top)));
    const double leading = std::round(top / magnitude * 10) / 10;
    int intervals = 5;
    if (leading == 1.5 || leading == 3 || leading == 6)
        intervals = 6;
    else if (leading == 2 || leading == 4 || leading == 8)
        intervals = 4;
    const double step = top / intervals;
    int decimals = 0;
    while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) -
                                    std::round(step * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    // The format before the range: a new range relabels the axis at once,
    // with whatever format it has then.
    axis->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QLatin1Char('f'));
    axis->setTickCount(intervals + 1);
    axis->setMinorTickCount(0);
    axis->setRange(0, top);
}

QString formatValue(double value) {
    if (!std::isfinite(value))
        return QStringLiteral("–");
    // Grouped as the chart axes are (see applyChartStyle()).
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    if (std::abs(value) >= 1000)
        return locale.toString(double(std::llround(value)), 'f', 0);
    return locale.toString(value, 'g', 3);
}

QString formatPercent(double percent) {
    const QString digits = QString::number(std::abs(percent), 'f', 1);
    if (digits == QLatin1String("0.0"))
        return QStringLiteral("±0.0%");
    return (percent < 0 ? QString(QChar(0x2212)) : QStringLiteral("+")) + digits + QLatin1Char('%');
}

} // namespace loadscope::ui
