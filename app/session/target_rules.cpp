#include "app/session/target_rules.h"

#include "engine/memcache_protocol.h"

#include <QRegularExpression>
#include <QStringList>
#include <QThread>
#include <algorithm>
#include <unistd.h>

namespace loadscope::app {

Result<Endpoint> parseEndpoint(const QString& text) {
    static const QRegularExpression pattern(
        QStringLiteral("^(?:\\[([0-9A-Fa-f:.]+)\\]|([^:\\[\\]\\s]+)):([0-9]{1,5})$"));
    const auto match = pattern.match(text.trimmed());
    const int port = match.hasMatch() ? match.captured(3).toInt() : 0;
    if (!match.hasMatch() || port < 1 || port > 65535)
        return invalidInput(
            QStringLiteral("expected HOST:PORT (e.g. 127.0.0.1:11211 or [::1]:11211), not '%1'")
                .arg(text));
    return Endpoint{match.captured(1).isEmpty() ? match.captured(2) : match.captured(1),
                    quint16(port)};
}

Result<void> checkHeaderName(const QString& name) {
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return invalidInput(QStringLiteral("a header needs a name"));
    for (const QChar c : trimmed) {
        if (c.unicode() <= 0x20 || c.unicode() >= 0x7f || c == QLatin1Char(':'))
            return invalidInput(
                QStringLiteral("header name '%1' may not hold spaces, colons or non-ASCII")
                    .arg(trimmed));
    }
    return {};
}

Result<std::vector<int>> parseCpuList(const QString& text) {
    // A machine with more CPUs than this is not something to run on.
    constexpr int kMaxCpu = 65535;
    static const QRegularExpression item(QStringLiteral("^(\\d+)(?:-(\\d+))?$"));
    std::vector<int> cpus;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString trimmed = part.trimmed();
        if (trimmed.isEmpty())
            continue;
        const QRegularExpressionMatch match = item.match(trimmed);
        if (!match.hasMatch())
            return invalidInput(
                QStringLiteral("'%1' is not a CPU number or range such as 0-3").arg(trimmed));
        bool firstOk = false;
        bool lastOk = true;
        const int first = match.captured(1).toInt(&firstOk);
        const int last = match.hasCaptured(2) ? match.captured(2).toInt(&lastOk) : first;
        if (!firstOk || !lastOk || first > kMaxCpu || last > kMaxCpu)
            return invalidInput(QStringLiteral("CPU numbers go up to %1").arg(kMaxCpu));
        if (last < first)
            return invalidInput(QStringLiteral("the range %1 runs backwards").arg(trimmed));
        for (int cpu = first; cpu <= last; ++cpu) {
            if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
                cpus.push_back(cpu);
        }
    }
    return cpus;
}

Result<void> checkCpusExist(const std::vector<int>& cpus) {
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu : cpus) {
        if (cpu < 0 || cpu >= configured)
            return invalidInput(QStringLiteral("CPU %1 does not exist: this machine has CPUs 0 "
                                               "to %2")
                                    .arg(cpu)
                                    .arg(configured - 1));
    }
    return {};
}

uint32_t threadCount(int requested) {
    if (requested > 0)
        return uint32_t(requested);
    return uint32_t(std::max(1, QThread::idealThreadCount()));
}

Result<MemcacheRatio> parseMemcacheRatio(const QString& text) {
    uint32_t sets = 0;
    uint32_t gets = 0;
    if (!engine::parseMemcacheRatio(text.trimmed().toStdString(), sets, gets) ||
        sets > uint32_t(std::numeric_limits<int>::max()) ||
        gets > uint32_t(std::numeric_limits<int>::max()))
        return invalidInput(
            QStringLiteral("ratio wants SETS:GETS such as 1:10 (not both 0), not '%1'").arg(text));
    return MemcacheRatio{int(sets), int(gets)};
}

Result<void> checkKeyPattern(const QString& pattern) {
    engine::KeyPattern set{};
    engine::KeyPattern get{};
    if (!engine::parseMemcacheKeyPatterns(pattern.trimmed().toUpper().toStdString(), set, get))
        return invalidInput(QStringLiteral("key pattern wants SET:GET, each R, S or G (e.g. "
                                           "R:R), not '%1'")
                                .arg(pattern));
    return {};
}

Result<void> checkRequestsCoverConcurrency(uint64_t requests, uint64_t concurrency) {
    if (requests > 0 && requests < concurrency)
        return invalidInput(QStringLiteral("cannot use a concurrency level (%1) greater than the "
                                           "number of requests (%2)")
                                .arg(concurrency)
                                .arg(requests));
    return {};
}

} // namespace loadscope::app
