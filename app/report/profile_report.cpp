#include "app/report/profile_report.h"

#include "engine/run_rates.h"

#include <QStringList>
#include <algorithm>

namespace loadscope::app {

namespace {

using engine::CpuPath;
using engine::ProcessRole;

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

// The "By path" entries, wrapped under their label.
QString wrapped(const QStringList& entries, qsizetype indent, qsizetype width) {
    QString out;
    qsizetype column = indent;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString item =
            entries[i] + (i + 1 < entries.size() ? QStringLiteral(", ") : QString());
        if (column + item.size() > width && column > indent) {
            while (out.endsWith(QLatin1Char(' ')))
                out.chop(1);
            out += QLatin1Char('\n') + QString(indent, QLatin1Char(' '));
            column = indent;
        }
        out += item;
        column += item.size();
    }
    return out;
}

} // namespace

QString formatProfileBlock(const PointResult& r) {
    if (!r.profile)
        return {};
    const CpuProfileSummary& p = *r.profile;
    if (!p.taken())
        return QStringLiteral("\nCPU profile: none (%1)\n").arg(p.unavailable);
    const uint64_t successful = engine::rates::successful(r.complete, r.failed);
    QString out = QStringLiteral("\nCPU profile (%1 CPUs at %2 Hz over the same window, %3 "
                                 "samples, %4 idle, %5 lost; µs per request)\n")
                      .arg(p.cpus)
                      .arg(p.periodUs > 0 ? 1e6 / p.periodUs : 0, 0, 'f', 0)
                      .arg(p.samples)
                      .arg(p.idleSamples)
                      .arg(p.lostSamples);
    if (successful == 0)
        return out + QStringLiteral("  No successful request to divide by.\n");
    const auto us = [&](uint64_t samples) {
        return double(samples) * p.periodUs / double(successful);
    };
    out += QStringLiteral("  %1 %2 %3 %4\n")
               .arg(QStringLiteral("Role"), -10)
               .arg(QStringLiteral("total"), 9)
               .arg(QStringLiteral("user"), 9)
               .arg(QStringLiteral("kernel"), 9);
    for (size_t i = 0; i < engine::kProcessRoleCount; ++i) {
        const auto role = ProcessRole(i);
        const uint64_t total = p.roleSamples(role);
        if (total == 0)
            continue;
        const uint64_t user = p.counts[i][size_t(CpuPath::User)];
        out += QStringLiteral("  %1 %2 %3 %4\n")
                   .arg(latin1(engine::processRoleId(role)), -10)
                   .arg(us(total), 9, 'f', 2)
                   .arg(us(user), 9, 'f', 2)
                   .arg(us(total - user), 9, 'f', 2);
    }
    std::vector<std::pair<uint64_t, CpuPath>> paths;
    for (size_t i = 0; i < engine::kCpuPathCount; ++i)
        if (const uint64_t n = p.pathSamples(CpuPath(i)))
            paths.emplace_back(n, CpuPath(i));
    std::stable_sort(paths.begin(), paths.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList entries;
    for (const auto& [samples, path] : paths)
        entries << QStringLiteral("%1 %2")
                       .arg(latin1(engine::cpuPathLabel(path)))
                       .arg(us(samples), 0, 'f', 2);
    if (!entries.isEmpty())
        out += QStringLiteral("  By path:   ") + wrapped(entries, 13, 100) +
               QStringLiteral("\n             (every role's but other's)\n");
    out += QStringLiteral("  Own cost:  the sampler thread %1 µs per request (%2 % of a CPU)\n")
               .arg(p.samplerCpuSeconds * 1e6 / double(successful), 0, 'f', 2)
               .arg(r.cpu && r.cpu->wallSeconds > 0 ? 100 * p.samplerCpuSeconds / r.cpu->wallSeconds
                                                    : 0.0,
                    0, 'f', 2);
    if (p.lostSamples > 0)
        out += QStringLiteral("  Lost:      %1 samples (a ring buffer was full): the figures above "
                              "leave them out\n")
                   .arg(p.lostSamples);
    if (!p.note.isEmpty())
        out += QStringLiteral("  Note:      %1\n").arg(p.note);
    return out;
}

} // namespace loadscope::app
