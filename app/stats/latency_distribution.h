#pragma once

#include "app/session/session.h"
#include "engine/histogram.h"

#include <QUuid>
#include <map>
#include <optional>
#include <utility>
#include <vector>

// The latency distribution of one target at one level over all its
// repetitions. Measured results carry engine histograms, which merge without
// loss, so the distribution is that of every request of every repetition.
// Imported results carry only the percentiles their tool printed, which
// cannot be merged; the lowest repetition that has them stands for the rest.
//
// Plain functions over a Session: they run on any thread (the Compare page
// builds them on a worker thread) and the CLI can call them too.
namespace loadscope::app {

// The total-time histograms of one target's repetitions at one level, merged.
struct MergedHistogram {
    engine::Histogram histogram;
    int results = 0; // repetitions merged into it
};

using TargetLevel = std::pair<QUuid, int>;

// Every target and level with at least one histogram. Cancelled results,
// results without a histogram (imported) and undecodable histograms are left
// out.
std::map<TargetLevel, MergedHistogram> mergedTotalHistograms(const Session& session);
// The same for one target and level; nullopt when none of its results has a
// histogram.
std::optional<MergedHistogram> mergedTotalHistogram(const Session& session, const QUuid& targetId,
                                                    int concurrency);

struct LatencyPercentile {
    double percentile = 0; // 0..100
    double latencyMs = 0;

    friend bool operator==(const LatencyPercentile&, const LatencyPercentile&) = default;
};

struct LatencyDistribution {
    enum class Source {
        Histograms,         // merged from the repetitions' histograms
        PrintedPercentiles, // what an imported tool printed, one repetition's
    };
    QUuid targetId;
    int concurrency = 0;
    Source source = Source::Histograms;
    int results = 0; // repetitions it stands for
    // Ascending in percentile, up to 100 for histograms. For histograms the
    // rows of HdrHistogram's percentile iterator (5 per halving of the
    // distance to 100%), so the tail is drawn as finely as the middle.
    std::vector<LatencyPercentile> percentiles;
};

// nullopt when the target has neither histograms nor printed percentiles at
// this level (a tcp-stream target, a cancelled point).
std::optional<LatencyDistribution> latencyDistribution(const Session& session,
                                                       const QUuid& targetId, int concurrency);
// Every target's at one level, keyed by target. One pass over the results;
// only that level's histograms are decoded (decoding is what costs: about a
// millisecond per histogram of a 10,000-result session).
std::map<QUuid, LatencyDistribution> latencyDistributionsAt(const Session& session,
                                                            int concurrency);

} // namespace loadscope::app
