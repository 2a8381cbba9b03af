#include "engine/histogram.h"

#include "engine/histogram_geometry.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <utility>

namespace loadscope::engine {

using namespace detail::geometry;

Histogram::Histogram() = default;

Histogram::Histogram(const Histogram& other)
    : m_total(other.m_total)
    , m_sum(other.m_sum)
    , m_min(other.m_min)
    , m_max(other.m_max) {
    if (other.m_counts.empty())
        return;
    allocateCounts(m_counts);
    if (m_total != 0) {
        const size_t first = indexOfValue(m_min);
        const size_t last = indexOfValue(m_max);
        std::copy(other.m_counts.data() + first, other.m_counts.data() + last + 1,
                  m_counts.data() + first);
    }
}

Histogram& Histogram::operator=(const Histogram& other) {
    if (this != &other) {
        Histogram copy(other);
        *this = std::move(copy);
    }
    return *this;
}

Histogram::Histogram(Histogram&& other) noexcept
    : m_counts(std::move(other.m_counts))
    , m_total(std::exchange(other.m_total, 0))
    , m_sum(std::exchange(other.m_sum, 0))
    , m_min(std::exchange(other.m_min, kEmptyMin))
    , m_max(std::exchange(other.m_max, 0)) {}

Histogram& Histogram::operator=(Histogram&& other) noexcept {
    if (this != &other) {
        m_counts = std::move(other.m_counts);
        m_total = std::exchange(other.m_total, 0);
        m_sum = std::exchange(other.m_sum, 0);
        m_min = std::exchange(other.m_min, kEmptyMin);
        m_max = std::exchange(other.m_max, 0);
        // other.m_counts is now empty: "no storage"; its next count allocates afresh.
    }
    return *this;
}

void Histogram::recordN(int64_t valueNs, uint64_t count) noexcept {
    if (count == 0) {
        return;
    }
    if (m_counts.empty()) [[unlikely]] {
        allocateCounts(m_counts);
    }
    const int64_t value = clampValue(valueNs);
    m_counts[indexOfValue(value)] += count;
    m_total += count;
    m_sum += static_cast<uint64_t>(value) * count;
    m_min = std::min(m_min, value);
    m_max = std::max(m_max, value);
}

void Histogram::merge(const Histogram& other) noexcept {
    if (other.m_total == 0) {
        return;
    }
    if (m_counts.empty()) {
        allocateCounts(m_counts);
    }
    // Read everything from `other` before writing: it may be *this.
    const size_t first = indexOfValue(other.m_min);
    const size_t last = indexOfValue(other.m_max);
    const uint64_t otherTotal = other.m_total;
    const uint64_t otherSum = other.m_sum;
    const int64_t otherMin = other.m_min;
    const int64_t otherMax = other.m_max;
    const uint64_t* source = other.m_counts.data();
    uint64_t* target = m_counts.data();
    for (size_t i = first; i <= last; ++i) {
        target[i] += source[i];
    }
    m_total += otherTotal;
    m_sum += otherSum;
    m_min = std::min(m_min, otherMin);
    m_max = std::max(m_max, otherMax);
}

void Histogram::reserve() {
    if (m_counts.empty())
        allocateCounts(m_counts);
}

void Histogram::reset() noexcept {
    if (m_total != 0) {
        std::fill(m_counts.data() + indexOfValue(m_min), m_counts.data() + indexOfValue(m_max) + 1,
                  uint64_t{0});
    }
    m_total = 0;
    m_sum = 0;
    m_min = kEmptyMin;
    m_max = 0;
}

double Histogram::mean() const noexcept {
    return m_total ? static_cast<double>(m_sum) / static_cast<double>(m_total) : 0.0;
}

double Histogram::stddev() const noexcept {
    // ab divides by done - 1 (its "sd" in Connection Times); one value has no spread.
    if (m_total < 2) {
        return 0.0;
    }
    const double average = mean();
    double squares = 0.0;
    for (size_t i = indexOfValue(m_min), last = indexOfValue(m_max); i <= last; ++i) {
        const uint64_t c = m_counts[i];
        if (c == 0) {
            continue;
        }
        // The exact min and max narrow the two edge buckets; without that a run of one
        // repeated value would show a spread of up to half a bucket.
        const int64_t low = std::max(rawLowest(i), m_min);
        const int64_t high = std::min(rawHighest(i), m_max);
        const double delta = (static_cast<double>(low) + static_cast<double>(high)) / 2.0 - average;
        squares += static_cast<double>(c) * delta * delta;
    }
    return std::sqrt(squares / static_cast<double>(m_total - 1));
}

int64_t Histogram::valueAtPercentile(double percentile) const noexcept {
    if (m_total == 0) {
        return 0;
    }
    if (!(percentile > 0.0)) {
        return m_min;
    }
    if (percentile >= 100.0) {
        return m_max;
    }
    const uint64_t rank = rankAt(percentile, m_total);
    uint64_t seen = 0;
    for (size_t i = indexOfValue(m_min), last = indexOfValue(m_max); i <= last; ++i) {
        seen += m_counts[i];
        if (seen >= rank) {
            // The top bucket's upper edge may lie above anything recorded; a percentile
            // above the reported max would read as a contradiction.
            return std::min(rawHighest(i), m_max);
        }
    }
    return m_max;
}

std::vector<Histogram::PercentilePoint>
Histogram::percentileDistribution(int ticksPerHalfDistance) const {
    std::vector<PercentilePoint> rows;
    if (m_total == 0) {
        return rows;
    }
    // Bounded so that a wild argument cannot ask for billions of rows.
    const double ticks = std::clamp(ticksPerHalfDistance, 1, 1024);
    const size_t last = indexOfValue(m_max);
    size_t index = indexOfValue(m_min);
    uint64_t seen = m_counts[index];
    double level = 0.0;
    for (;;) {
        const uint64_t rank = rankAt(level, m_total);
        while (seen < rank && index < last) {
            seen += m_counts[++index];
        }
        const int64_t value = level == 0.0 ? m_min : std::min(rawHighest(index), m_max);
        rows.push_back({value, level, seen});
        if (seen >= m_total) {
            break;
        }
        const double halvings = std::floor(std::log2(100.0 / (100.0 - level)));
        const double next = level + 100.0 / (ticks * std::exp2(halvings + 1.0));
        // Past ~2^50 samples the step drops below a double's resolution near 100 %.
        if (!(next > level) || next >= 100.0) {
            break;
        }
        level = next;
    }
    rows.push_back({m_max, 100.0, m_total});
    return rows;
}

size_t Histogram::indexFor(int64_t valueNs) noexcept {
    return indexOfValue(clampValue(valueNs));
}

int64_t Histogram::lowestEquivalent(size_t index) noexcept {
    return rawLowest(std::min(index, kBucketCount - 1));
}

int64_t Histogram::highestEquivalent(size_t index) noexcept {
    return rawHighest(std::min(index, kBucketCount - 1));
}

size_t Histogram::bucketCount() noexcept {
    return kBucketCount;
}

bool operator==(const Histogram& a, const Histogram& b) noexcept {
    if (a.m_total != b.m_total || a.m_sum != b.m_sum || a.min() != b.min() || a.max() != b.max()) {
        return false;
    }
    if (a.m_total == 0) {
        return true;
    }
    const size_t first = indexOfValue(a.m_min);
    const size_t last = indexOfValue(a.m_max) + 1;
    return std::equal(a.m_counts.data() + first, a.m_counts.data() + last,
                      b.m_counts.data() + first);
}

} // namespace loadscope::engine
