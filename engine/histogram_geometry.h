#pragma once

// The bucket geometry of engine::Histogram, shared by histogram.cpp (recording,
// merging, percentiles) and histogram_serialization.cpp (the byte form).
//
// Bucket layout
// -------------
// Values below 2 * 2048 each have a bucket of their own. Above that, every power-of-two range
// [2^m, 2^(m+1)) is cut into 2048 equal buckets of width 2^(m-11), so a bucket is never wider
// than 1/2048 of the smallest value it holds. Half-octave layouts need half the counters but
// only reach 1/1024; the header promises 1/2048. With 1 h ~ 2^41.7 ns that is 64,793 counters.

#include "engine/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace loadscope::engine::detail::geometry {

inline constexpr int kSubBits = Histogram::kSubBucketBits;
inline constexpr uint64_t kSubCount = uint64_t{1} << kSubBits;
inline constexpr uint64_t kSubMask = kSubCount - 1;
inline constexpr int64_t kEmptyMin = std::numeric_limits<int64_t>::max();

inline constexpr size_t rawIndex(uint64_t value) noexcept {
    // OR-ing in kSubCount gives every value below 2 * kSubCount shift 0, which folds the exact
    // range into the logarithmic formula: no branch on the hot path.
    const int shift = 63 - kSubBits - std::countl_zero(value | kSubCount);
    return (static_cast<size_t>(shift) << kSubBits) + static_cast<size_t>(value >> shift);
}

inline constexpr size_t kBucketCount = rawIndex(Histogram::kHighestTrackable) + 1;

inline constexpr int shiftOf(size_t index) noexcept {
    const size_t block = index >> kSubBits;
    return block <= 1 ? 0 : static_cast<int>(block - 1);
}

inline constexpr int64_t rawLowest(size_t index) noexcept {
    if (index < kSubCount) {
        return static_cast<int64_t>(index);
    }
    return static_cast<int64_t>(((index & kSubMask) | kSubCount) << shiftOf(index));
}

inline constexpr int64_t rawHighest(size_t index) noexcept {
    return rawLowest(index) + (int64_t{1} << shiftOf(index)) - 1;
}

static_assert(rawIndex(kSubCount * 2 - 1) == kSubCount * 2 - 1);
static_assert(rawLowest(rawIndex(Histogram::kHighestTrackable)) <= Histogram::kHighestTrackable);
static_assert(rawHighest(kBucketCount - 1) >= Histogram::kHighestTrackable);

inline constexpr int64_t clampValue(int64_t value) noexcept {
    return std::clamp<int64_t>(value, 0, Histogram::kHighestTrackable);
}

inline size_t indexOfValue(int64_t clampedValue) noexcept {
    return rawIndex(static_cast<uint64_t>(clampedValue));
}

// Out of line so that the hot path of record() needs no saved registers.
[[gnu::noinline, gnu::cold]] inline void allocateCounts(detail::BucketArray& counts) {
    counts = detail::BucketArray(kBucketCount);
}

// ceil(percentile / 100 * total), kept in [1, total].
inline uint64_t rankAt(double percentile, uint64_t total) noexcept {
    const double scaled = percentile / 100.0 * static_cast<double>(total);
    // The product can land a few ulps above an integer (99.9 % of 1000 gives 999.0000000000001);
    // without the nudge, ceil would step past the sample the user asked for.
    const double rank = std::ceil(scaled - scaled * 8 * std::numeric_limits<double>::epsilon());
    if (!(rank >= 1.0)) {
        return 1;
    }
    if (rank >= static_cast<double>(total)) {
        return total;
    }
    return static_cast<uint64_t>(rank);
}

// ---- byte form helpers ----

} // namespace loadscope::engine::detail::geometry
