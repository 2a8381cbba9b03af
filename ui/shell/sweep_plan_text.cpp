#include "ui/shell/sweep_plan_text.h"

#include "app/session/sweep_plan.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <set>

namespace loadscope::ui {

namespace {

QStringList tokens(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

// The one reader of level lists: the separators, the empty list and a level
// listed twice are refused alike for every kind. `read` turns one token into
// a level or a one-line refusal; `twice` says which token came again.
template <typename T, typename Read, typename Twice>
app::Result<std::vector<T>> parseLevels(const QString& text, const QString& emptyMessage, Read read,
                                        Twice twice) {
    const QStringList parts = tokens(text);
    if (parts.isEmpty())
        return app::invalidInput(emptyMessage);
    std::vector<T> levels;
    std::set<T> seen;
    for (const QString& part : parts) {
        const app::Result<T> level = read(part);
        if (!level)
            return level.error();
        if (!seen.insert(*level).second)
            return app::invalidInput(twice(part, *level));
        levels.push_back(*level);
    }
    return levels;
}

} // namespace

app::Result<std::vector<int>> parseConcurrencyLevels(const QString& text) {
    return parseLevels<int>(
        text, QObject::tr("Enter at least one level, e.g. 1, 10, 100"),
        [](const QString& part) -> app::Result<int> {
            bool ok = false;
            const qlonglong level = part.toLongLong(&ok);
            if (!ok)
                return app::invalidInput(QObject::tr("'%1' is not a whole number").arg(part));
            if (level < 1 || level > app::kMaxConcurrency)
                return app::invalidInput(QObject::tr("Concurrency %1 is out of range (1 to %2)")
                                             .arg(level)
                                             .arg(app::kMaxConcurrency));
            return static_cast<int>(level);
        },
        [](const QString&, int level) {
            return QObject::tr("Concurrency %1 is listed twice").arg(level);
        });
}

QString formatConcurrencyLevels(const std::vector<int>& levels) {
    QStringList parts;
    for (int level : levels)
        parts << QString::number(level);
    return parts.join(QStringLiteral(", "));
}

app::Result<std::vector<double>> parseRateLevels(const QString& text) {
    return parseLevels<double>(
        text, QObject::tr("Enter at least one rate in requests/s, e.g. 1000, 2000, 5000"),
        [](const QString& part) -> app::Result<double> {
            QString number = part;
            double scale = 1;
            if (number.endsWith(QLatin1Char('k'), Qt::CaseInsensitive)) {
                number.chop(1);
                scale = 1000;
            }
            bool ok = false;
            const double rate = number.toDouble(&ok) * scale;
            if (!ok || !std::isfinite(rate))
                return app::invalidInput(QObject::tr("'%1' is not a rate in requests/s").arg(part));
            if (!app::checkRate(rate))
                return app::invalidInput(QObject::tr("Rate %1 req/s is out of range (%2)")
                                             .arg(part, app::rateRangeText()));
            return rate;
        },
        [](const QString& part, double) {
            return QObject::tr("Rate %1 req/s is listed twice").arg(part);
        });
}

QString formatRateLevels(const std::vector<double>& levels) {
    QStringList parts;
    for (double level : levels)
        parts << QString::number(level, 'g', 15);
    return parts.join(QStringLiteral(", "));
}

QString formatCpuList(const std::vector<int>& cpus) {
    QStringList parts;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        parts << (j == i ? QString::number(cpus[i])
                         : QStringLiteral("%1-%2").arg(cpus[i]).arg(cpus[j]));
        i = j + 1;
    }
    return parts.join(QLatin1Char(','));
}

QString formatSeconds(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return QObject::tr("unknown");
    if (seconds < 10)
        return QObject::tr("%1 s").arg(seconds, 0, 'f', seconds < 1 ? 2 : 1);
    const auto total = static_cast<qint64>(std::llround(seconds));
    const qint64 hours = total / 3600;
    const qint64 minutes = (total % 3600) / 60;
    const qint64 rest = total % 60;
    if (hours > 0)
        return QObject::tr("%1 h %2 min").arg(hours).arg(minutes, 2, 10, QLatin1Char('0'));
    if (minutes > 0)
        return QObject::tr("%1 min %2 s").arg(minutes).arg(rest, 2, 10, QLatin1Char('0'));
    return QObject::tr("%1 s").arg(rest);
}

} // namespace loadscope::ui
