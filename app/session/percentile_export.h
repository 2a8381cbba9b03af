#pragma once

#include "app/common/result.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QString>
#include <QUuid>
#include <map>
#include <vector>

namespace loadscope::engine {
class Histogram;
}

// Latency distributions as text in HdrHistogram's "percentile distribution"
// layout, which hdr-plot, HdrHistogram's plotter and HistogramLogAnalyzer
// users read:
//
//          Value     Percentile TotalCount 1/(1-Percentile)
//
//          0.052 0.000000000000          1           1.00
//          ...
//          9.871 1.000000000000      80000
//   #[Mean    =        0.131, StdDeviation   =        0.092]
//   #[Max     =        9.871, Total count    =        80000]
//
// Values in milliseconds with three decimals, percentiles as fractions;
// the 100% row has no 1/(1-Percentile) column. Numbers never follow the
// locale.
namespace loadscope::app {

QByteArray percentileDistributionText(const engine::Histogram& histogram,
                                      int ticksPerHalfDistance = 5);

struct PercentileDistributionFile {
    QString fileName; // "<target>_c<concurrency>.hgrm", unique within one export
    QUuid targetId;
    int concurrency = 0;
    int results = 0; // repetitions merged into it
    QByteArray text;
};

// Each target's file name stem: its name in lower-case letters, digits, '_'
// and '-', at most 80 characters, "-2", "-3"... for names that would collide.
std::map<QUuid, QString> targetFileStems(const Session& session);

// One file per target and level: the total-time histograms of its
// repetitions merged (merging is lossless). Imported results, which carry no
// histogram, and cancelled ones are left out; a target and level without any
// histogram gets no file. Targets in session order, levels ascending.
std::vector<PercentileDistributionFile> percentileDistributionFiles(const Session& session);

// Writes percentileDistributionFiles() into `directory` (created when
// missing). Returns the paths written, or the one file that failed.
Result<QStringList> writePercentileDistributions(const Session& session, const QString& directory);

} // namespace loadscope::app
