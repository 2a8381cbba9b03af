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

} // namespace

std::optional<std::vector<int>> parseConcurrencyLevels(const QString& text, QString* error) {
    std::vector<int> levels;
    std::set<int> seen;
    const QStringList parts = tokens(text);
    if (parts.isEmpty()) {
        *error = QObject::tr("Enter at least one level, e.g. 1, 10, 100");
        return std::nullopt;
    }
    for (const QString& part : parts) {
        bool ok = false;
        const qlonglong level = part.toLongLong(&ok);
        if (!ok) {
            *error = QObject::tr("'%1' is not a whole number").arg(part);
            return std::nullopt;
        }
        if (level < 1 || level > app::kMaxConcurrency) {
            *error = QObject::tr("Concurrency %1 is out of range (1 to %2)")
                         .arg(level)
                         .arg(app::kMaxConcurrency);
            return std::nullopt;
        }
        if (!seen.insert(static_cast<int>(level)).second) {
            *error = QObject::tr("Concurrency %1 is listed twice").arg(level);
            return std::nullopt;
        }
        levels.push_back(static_cast<int>(level));
    }
    return levels;
}

QString formatConcurrencyLevels(const std::vector<int>& levels) {
    QStringList parts;
    for (int level : levels)
        parts << QString::number(level);
    return parts.join(QStringLiteral(", "));
}

std::optional<std::vector<int>> parseCpuList(const QString& text, QString* error) {
    std::set<int> cpus;
    static const QRegularExpression item(QStringLiteral("^(\\d+)(?:-(\\d+))?$"));
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString trimmed = part.trimmed();
        if (trimmed.isEmpty())
            continue;
        const QRegularExpressionMatch match = item.match(trimmed);
        if (!match.hasMatch()) {
            *error = QObject::tr("'%1' is not a CPU number or range such as 0-3").arg(trimmed);
            return std::nullopt;
        }
        bool firstOk = false;
        bool lastOk = true;
        const int first = match.captured(1).toInt(&firstOk);
        const int last = match.hasCaptured(2) ? match.captured(2).toInt(&lastOk) : first;
        // A machine with more CPUs than this is not something to sweep on.
        constexpr int kMaxCpu = 65535;
        if (!firstOk || !lastOk || first > kMaxCpu || last > kMaxCpu) {
            *error = QObject::tr("CPU numbers go up to %1").arg(kMaxCpu);
            return std::nullopt;
        }
        if (last < first) {
            *error = QObject::tr("The range %1 runs backwards").arg(trimmed);
            return std::nullopt;
        }
        for (int cpu = first; cpu <= last; ++cpu)
            cpus.insert(cpu);
    }
    return std::vector<int>(cpus.begin(), cpus.end());
}

QString formatCpuList(const std::vector<int>& cpus) {
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    QStringList parts;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        parts << (j == i ? QString::number(sorted[i])
                         : QStringLiteral("%1-%2").arg(sorted[i]).arg(sorted[j]));
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
