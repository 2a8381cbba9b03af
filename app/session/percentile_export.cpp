#include "app/session/percentile_export.h"

#include "app/common/atomic_file_writer.h"
#include "app/stats/latency_distribution.h"
#include "engine/histogram.h"

#include <QDir>
#include <limits>
#include <map>
#include <set>

namespace loadscope::app {

namespace {

constexpr double kNsPerMs = 1e6;

double toMs(double ns) {
    return ns / kNsPerMs;
}

// Longest slug kept: "<slug>-<n>_c<level>.hgrm" stays far below NAME_MAX
// (255 bytes) for any level and any count of equal names.
constexpr qsizetype kMaxSlugLength = 80;

// A file-name-safe form of a target's name: lower case letters, digits and
// dashes ("Container (NAT)" -> "container-nat"), at most kMaxSlugLength long.
QString slug(const QString& name) {
    QString out;
    for (const QChar c : name.toLower()) {
        if ((c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
            (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_')) {
            out += c;
        } else if (!out.isEmpty() && !out.endsWith(QLatin1Char('-'))) {
            out += QLatin1Char('-');
        }
    }
    if (out.size() > kMaxSlugLength)
        out.truncate(kMaxSlugLength);
    while (out.endsWith(QLatin1Char('-')))
        out.chop(1);
    return out.isEmpty() ? QStringLiteral("target") : out;
}

} // namespace

QByteArray percentileDistributionText(const engine::Histogram& histogram,
                                      int ticksPerHalfDistance) {
    // QString::asprintf formats in the C locale whatever the process locale is.
    QString text = QString::asprintf("%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
                                     "1/(1-Percentile)");
    for (const auto& point : histogram.percentileDistribution(ticksPerHalfDistance)) {
        const double fraction = point.percentile / 100.0;
        const double valueMs = toMs(static_cast<double>(point.valueNs));
        const auto totalCount = static_cast<unsigned long long>(point.totalCount);
        if (fraction < 1.0)
            text += QString::asprintf("%12.3f %2.12f %10llu %14.2f\n", valueMs, fraction,
                                      totalCount, 1.0 / (1.0 - fraction));
        else
            text += QString::asprintf("%12.3f %2.12f %10llu\n", valueMs, fraction, totalCount);
    }
    text += QString::asprintf("#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
                              toMs(histogram.mean()), toMs(histogram.stddev()));
    text += QString::asprintf("#[Max     = %12.3f, Total count    = %12llu]\n",
                              toMs(static_cast<double>(histogram.max())),
                              static_cast<unsigned long long>(histogram.count()));
    return text.toLatin1();
}

std::map<QUuid, QString> targetFileStems(const Session& session) {
    std::set<QString> usedNames;
    std::map<QUuid, QString> baseNames;
    for (const Target& target : session.targets) {
        QString base = slug(target.displayName());
        // Two targets may share a name; their files must not overwrite each other.
        for (int n = 2; usedNames.count(base); ++n)
            base = slug(target.displayName()) + QLatin1Char('-') + QString::number(n);
        usedNames.insert(base);
        baseNames[target.id] = base;
    }
    return baseNames;
}

std::vector<PercentileDistributionFile> percentileDistributionFiles(const Session& session) {
    std::vector<PercentileDistributionFile> files;
    std::map<QUuid, QString> baseNames = targetFileStems(session);

    const std::map<TargetLevel, MergedHistogram> merged = mergedTotalHistograms(session);
    for (const Target& target : session.targets) {
        // (target, level) keys sort by target first: this target's levels, ascending.
        for (auto it = merged.lower_bound({target.id, std::numeric_limits<int>::min()});
             it != merged.end() && it->first.first == target.id; ++it) {
            const int level = it->first.second;
            PercentileDistributionFile file;
            file.fileName = baseNames[target.id] + QStringLiteral("_c") + QString::number(level) +
                            QStringLiteral(".hgrm");
            file.targetId = target.id;
            file.concurrency = level;
            file.results = it->second.results;
            file.text = percentileDistributionText(it->second.histogram);
            files.push_back(std::move(file));
        }
    }
    return files;
}

Result<QStringList> writePercentileDistributions(const Session& session, const QString& directory) {
    const QDir dir(directory);
    if (!dir.mkpath(QStringLiteral(".")))
        return makeError(ErrorCode::Io, QStringLiteral("cannot create the directory"),
                         QDir::toNativeSeparators(directory));
    QStringList written;
    for (const PercentileDistributionFile& file : percentileDistributionFiles(session)) {
        const QString path = dir.filePath(file.fileName);
        if (Result<void> saved = writeFileAtomically(path, file.text); !saved)
            return saved.error();
        written << path;
    }
    return written;
}

} // namespace loadscope::app
