#pragma once

#include "engine/bucket_array.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// Log-linear (HDR-style) histogram of durations in nanoseconds.
//
// Values from 0 to kHighestTrackable (1 h) are recorded in constant time with a
// relative error below 1/2048 (better than 3 significant digits); values below
// 2048 ns are exact. Larger values are clamped to kHighestTrackable and counted
// (negative ones, from a clock stepping back, count as 0).
// One instance is owned by one thread: there is no internal synchronisation.
class Histogram {
public:
    static constexpr int64_t kHighestTrackable = 3'600'000'000'000; // 1 h in ns
    static constexpr int kSubBucketBits = 11;                       // 2048 sub-buckets

    Histogram();
    // Copies write only the used range of buckets.
    Histogram(const Histogram& other);
    Histogram& operator=(const Histogram& other);
    // A moved-from histogram is empty and fully usable, so an interval recorder can
    // hand its histogram over and keep recording.
    Histogram(Histogram&& other) noexcept;
    Histogram& operator=(Histogram&& other) noexcept;
    ~Histogram() = default;

    void record(int64_t valueNs) noexcept { recordN(valueNs, 1); }
    void recordN(int64_t valueNs, uint64_t count) noexcept;
    // Adds every count of `other`; merging is lossless and associative.
    void merge(const Histogram& other) noexcept;
    void reset() noexcept;
    // Maps the buckets now rather than at the first record, so that a measured
    // stretch does not pay for it; a page of buckets becomes resident when a
    // value first falls in it.
    void reserve();

    uint64_t count() const noexcept { return m_total; }
    bool empty() const noexcept { return m_total == 0; }
    // min, max and mean are exact (kept beside the buckets); stddev and
    // percentiles come from the buckets. All are 0 when empty.
    int64_t min() const noexcept { return m_total ? m_min : 0; }
    int64_t max() const noexcept { return m_total ? m_max : 0; }
    double mean() const noexcept;
    double stddev() const noexcept; // sample standard deviation (n - 1), as ab prints it
    // Smallest recorded-equivalent value v such that `percentile` percent of the
    // values are <= v. percentile in [0, 100]; 0 when empty.
    int64_t valueAtPercentile(double percentile) const noexcept;

    // One row of the HdrHistogram "percentile distribution" layout.
    struct PercentilePoint {
        int64_t valueNs;
        double percentile; // 0..100
        uint64_t totalCount;
    };
    // The distribution as HdrHistogram's percentile iterator walks it:
    // `ticksPerHalfDistance` rows for every halving of the remaining distance to 100 %.
    std::vector<PercentilePoint> percentileDistribution(int ticksPerHalfDistance = 5) const;

    // Compact, versioned byte form (sparse, varint-coded). deserialize() returns
    // nullopt for anything malformed, never throws and never reads out of bounds.
    std::string serialize() const;
    static std::optional<Histogram> deserialize(std::string_view bytes);

    // The figures a deserialized histogram would give, read in one pass over the
    // byte form without building the bucket array: opening a session summarises
    // thousands of stored histograms. nullopt for exactly the bytes deserialize()
    // refuses.
    struct Summary {
        uint64_t count = 0;
        int64_t min = 0;
        int64_t max = 0;
        double mean = 0;
        double stddev = 0;
        std::vector<int64_t> valuesAtPercentiles; // one per requested percentile, in order
    };
    static std::optional<Summary> summarizeSerialized(std::string_view bytes,
                                                      std::span<const double> percentiles);
    // Whether deserialize() would accept the bytes (nullopt for exactly those it
    // refuses), with only what the header holds filled in: count, min, max and
    // mean, no stddev and no percentile. A fraction of summarizeSerialized()'s
    // cost, for a reader that keeps the figures elsewhere and needs the check.
    static std::optional<Summary> checkSerialized(std::string_view bytes) noexcept;
    // The same header figures once the magic, the version, the CRC-32 over every
    // byte and the header's own rules have passed, without walking the runs of
    // buckets: any accidental damage to a written blob fails its checksum. Bytes
    // rewritten by hand behind a right checksum may pass here and still be
    // refused by deserialize() and mergeSerialized().
    static std::optional<Summary> serializedHeader(std::string_view bytes) noexcept;
    // Adds the counts of a byte form, as merge(*deserialize(bytes)) would, without
    // building a second bucket array. False, and nothing added, for bytes that
    // deserialize() refuses.
    bool mergeSerialized(std::string_view bytes);

    // Bucket helpers, exposed for tests.
    static size_t indexFor(int64_t valueNs) noexcept;
    static int64_t lowestEquivalent(size_t index) noexcept;
    static int64_t highestEquivalent(size_t index) noexcept;
    static size_t bucketCount() noexcept;

    friend bool operator==(const Histogram& a, const Histogram& b) noexcept;

private:
    // Empty until the first count arrives, so the many histograms a result carries
    // cost nothing until used. Every non-zero count lies between indexFor(m_min) and
    // indexFor(m_max), which keeps merge, reset, copies and scans to the used range.
    detail::BucketArray m_counts;
    uint64_t m_total = 0;
    uint64_t m_sum = 0; // ns; overflows only past 584 years of summed latency
    // Sentinels while empty, so that record() needs no first-value branch.
    int64_t m_min = std::numeric_limits<int64_t>::max();
    int64_t m_max = 0;
};

} // namespace loadscope::engine
