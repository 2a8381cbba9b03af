// engine::Histogram's byte form: serialize(), deserialize(), checkSerialized(),
// mergeSerialized() and summarizeSerialized(), which read it through one parser.
#include "engine/histogram.h"
#include "engine/histogram_geometry.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

// Byte form, version 1
// --------------------
// Integers are unsigned LEB128 varints in their shortest form unless noted.
//   "LSHG"                       magic
//   0x01                         version
//   total min max sum            min, max and sum are 0 when total is 0
//   runCount                     number of runs of consecutive non-zero buckets
//   runCount x { zerosBefore length count[length] }
//                                zerosBefore: empty buckets since the previous run (since
//                                bucket 0 for the first run; at least 1 for the others);
//                                length >= 1; every count >= 1
//   crc32                        4 bytes little-endian, IEEE CRC-32 of everything before it
// Every field has exactly one valid spelling, so a blob that deserialize() accepts
// serializes back to the same bytes, and stored sessions compare byte for byte.

namespace loadscope::engine {

using namespace detail::geometry;

namespace {

constexpr std::array<char, 4> kMagic{'L', 'S', 'H', 'G'};
constexpr uint8_t kFormatVersion = 1;
constexpr size_t kHeaderSize = kMagic.size() + 1;
constexpr size_t kTrailerSize = 4;

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes, so eight
// bytes fold in with eight lookups and no dependency between them. Opening a session checks
// every stored histogram; one byte per step made the checksum its largest cost.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr CrcTables makeCrcTables() {
    CrcTables tables{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) {
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        }
        tables[0][i] = c;
    }
    for (size_t k = 1; k < tables.size(); ++k) {
        for (uint32_t i = 0; i < 256; ++i) {
            const uint32_t previous = tables[k - 1][i];
            tables[k][i] = tables[0][previous & 0xFFu] ^ (previous >> 8);
        }
    }
    return tables;
}

constexpr CrcTables kCrcTables = makeCrcTables();

uint32_t crc32(const unsigned char* data, size_t size) noexcept {
    const auto& t = kCrcTables;
    uint32_t crc = 0xFFFFFFFFu;
    for (; size >= 8; data += 8, size -= 8) {
        // Bytes assembled by hand: the same on any byte order and any alignment.
        const uint32_t low = crc ^ (uint32_t{data[0]} | uint32_t{data[1]} << 8 |
                                    uint32_t{data[2]} << 16 | uint32_t{data[3]} << 24);
        crc = t[7][low & 0xFFu] ^ t[6][(low >> 8) & 0xFFu] ^ t[5][(low >> 16) & 0xFFu] ^
              t[4][low >> 24] ^ t[3][data[4]] ^ t[2][data[5]] ^ t[1][data[6]] ^ t[0][data[7]];
    }
    for (; size > 0; ++data, --size) {
        crc = t[0][(crc ^ *data) & 0xFFu] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

void putVarint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

class Reader {
public:
    Reader(const unsigned char* begin, const unsigned char* end)
        : m_pos(begin)
        , m_end(end) {}

    // Most stored counts are below 128: one byte, read here without a call.
    bool varint(uint64_t& out) noexcept {
        if (m_pos != m_end && *m_pos < 0x80) [[likely]] {
            out = *m_pos++;
            return true;
        }
        return longVarint(out);
    }

    bool atEnd() const noexcept { return m_pos == m_end; }

    // Reads up to `limit` counts of 1 to 127 (one byte each, the common case) in a
    // loop without a call or a varint decode, stopping before any other byte;
    // onCount(k, count) for each. Returns how many were read and adds them to `sum`.
    template <typename OnCount>
    size_t shortCounts(size_t limit, uint64_t& sum, OnCount&& onCount) noexcept {
        const size_t available = std::min(limit, static_cast<size_t>(m_end - m_pos));
        uint64_t added = 0;
        size_t k = 0;
        for (; k < available; ++k) {
            const unsigned char c = m_pos[k];
            if (static_cast<unsigned char>(c - 1) >= 0x7F) {
                break;
            }
            added += c;
            onCount(k, c);
        }
        m_pos += k;
        sum += added;
        return k;
    }

private:
    [[gnu::noinline]] bool longVarint(uint64_t& out) noexcept {
        uint64_t result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos == m_end) {
                return false;
            }
            const unsigned char byte = *m_pos++;
            if (shift == 63 && byte > 1) {
                return false; // bits beyond 64
            }
            result |= static_cast<uint64_t>(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) {
                if (byte == 0 && shift != 0) {
                    return false; // padded encoding: not the one spelling of this value
                }
                out = result;
                return true;
            }
        }
        return false;
    }

    const unsigned char* m_pos;
    const unsigned char* m_end;
};

struct SerializedHeader {
    uint64_t total = 0;
    uint64_t min = 0;
    uint64_t max = 0;
    uint64_t sum = 0;
};

// The one reading of the byte form, so that deserialize() and summarizeSerialized()
// refuse the same blobs. onHeader(header) runs once the header has passed its own
// checks, onBucket(index, count) for every non-zero bucket in ascending order; both
// may have run for a blob that is refused in the end.
// With walkBuckets false it stops once the header has passed: magic, version,
// checksum and the header's own rules, nothing of the runs.
template <bool walkBuckets = true, typename OnHeader, typename OnBucket>
bool parseSerialized(std::string_view bytes, OnHeader&& onHeader, OnBucket&& onBucket) {
    if (bytes.size() < kHeaderSize + kTrailerSize) {
        return false;
    }
    if (!std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) {
        return false;
    }
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    if (data[kMagic.size()] != kFormatVersion) {
        return false;
    }
    const size_t payloadEnd = bytes.size() - kTrailerSize;
    uint32_t storedCrc = 0;
    for (size_t byte = 0; byte < kTrailerSize; ++byte) {
        storedCrc |= static_cast<uint32_t>(data[payloadEnd + byte]) << (8 * byte);
    }
    if (crc32(data, payloadEnd) != storedCrc) {
        return false;
    }

    Reader in(data + kHeaderSize, data + payloadEnd);
    SerializedHeader header;
    uint64_t runs = 0;
    if (!in.varint(header.total) || !in.varint(header.min) || !in.varint(header.max) ||
        !in.varint(header.sum) || !in.varint(runs)) {
        return false;
    }
    const uint64_t total = header.total;
    const uint64_t minValue = header.min;
    const uint64_t maxValue = header.max;
    const auto highest = static_cast<uint64_t>(Histogram::kHighestTrackable);
    if (minValue > maxValue || maxValue > highest) {
        return false;
    }
    if (total == 0) {
        if (minValue != 0 || maxValue != 0 || header.sum != 0 || runs != 0 || !in.atEnd()) {
            return false;
        }
        onHeader(header);
        return true;
    }
    if (runs == 0 || runs > kBucketCount) {
        return false;
    }
    if (total == 1 && minValue != maxValue) {
        return false;
    }
    uint64_t lowestSum = 0;
    uint64_t highestSum = 0;
    // Only a sum that cannot have wrapped can be held to the min/max bounds.
    if (!__builtin_mul_overflow(maxValue, total, &highestSum)) {
        lowestSum = minValue * total;
        if (header.sum < lowestSum || header.sum > highestSum) {
            return false;
        }
        if (minValue == maxValue && header.sum != lowestSum) {
            return false;
        }
    }
    onHeader(header);
    if constexpr (!walkBuckets) {
        return true;
    }

    size_t index = 0;
    size_t firstUsed = 0;
    uint64_t countSum = 0;
    for (uint64_t run = 0; run < runs; ++run) {
        uint64_t zeros = 0;
        uint64_t length = 0;
        if (!in.varint(zeros) || !in.varint(length)) {
            return false;
        }
        // Adjacent runs would be one run: a second spelling of the same histogram.
        if ((run > 0 && zeros == 0) || zeros > kBucketCount - index) {
            return false;
        }
        index += static_cast<size_t>(zeros);
        if (length == 0 || length > kBucketCount - index) {
            return false;
        }
        if (run == 0) {
            // min must sit in the first bucket, or scans bounded by it would miss counts.
            firstUsed = index;
            if (rawIndex(minValue) != firstUsed) {
                return false;
            }
        }
        for (uint64_t k = 0; k < length;) {
            // Refused as soon as the counts pass the total, so that the short counts
            // below (at most 127 per bucket) cannot wrap the sum.
            if (countSum > total) {
                return false;
            }
            const size_t base = index;
            const size_t read = in.shortCounts(
                static_cast<size_t>(length - k), countSum,
                [&onBucket, base](size_t offset, uint64_t c) { onBucket(base + offset, c); });
            index += read;
            k += read;
            if (k == length) {
                break;
            }
            uint64_t c = 0;
            if (!in.varint(c) || c == 0 || __builtin_add_overflow(countSum, c, &countSum)) {
                return false;
            }
            onBucket(index++, c);
            ++k;
        }
    }
    const size_t lastUsed = index - 1;
    // And max in the last one.
    return in.atEnd() && countSum == total && rawIndex(maxValue) == lastUsed;
}
} // namespace

std::string Histogram::serialize() const {
    std::string out(kMagic.begin(), kMagic.end());
    out.push_back(static_cast<char>(kFormatVersion));
    putVarint(out, m_total);
    putVarint(out, static_cast<uint64_t>(min()));
    putVarint(out, static_cast<uint64_t>(max()));
    putVarint(out, m_sum);
    if (m_total == 0) {
        putVarint(out, 0);
    } else {
        const size_t first = indexOfValue(m_min);
        const size_t last = indexOfValue(m_max);
        uint64_t runs = 0;
        for (size_t i = first; i <= last; ++i) {
            if (m_counts[i] != 0 && (i == first || m_counts[i - 1] == 0)) {
                ++runs;
            }
        }
        putVarint(out, runs);
        size_t previousEnd = 0;
        size_t i = first;
        while (i <= last) {
            const size_t runStart = i;
            while (i <= last && m_counts[i] != 0) {
                ++i;
            }
            putVarint(out, runStart - previousEnd);
            putVarint(out, i - runStart);
            for (size_t k = runStart; k < i; ++k) {
                putVarint(out, m_counts[k]);
            }
            previousEnd = i;
            while (i <= last && m_counts[i] == 0) {
                ++i;
            }
        }
    }
    const uint32_t crc = crc32(reinterpret_cast<const unsigned char*>(out.data()), out.size());
    for (int byte = 0; byte < 4; ++byte) {
        out.push_back(static_cast<char>((crc >> (8 * byte)) & 0xFFu));
    }
    return out;
}

std::optional<Histogram> Histogram::deserialize(std::string_view bytes) {
    Histogram h;
    const bool valid = parseSerialized(
        bytes,
        [&h](const SerializedHeader& header) {
            h.m_total = header.total;
            h.m_sum = header.sum;
            if (header.total != 0) {
                h.m_min = static_cast<int64_t>(header.min);
                h.m_max = static_cast<int64_t>(header.max);
                allocateCounts(h.m_counts);
            }
        },
        [&h](size_t index, uint64_t count) { h.m_counts[index] = count; });
    if (!valid) {
        return std::nullopt;
    }
    return h;
}

namespace {

template <bool walkBuckets>
std::optional<Histogram::Summary> headerFigures(std::string_view bytes) noexcept {
    Histogram::Summary summary;
    const bool valid = parseSerialized<walkBuckets>(
        bytes,
        [&summary](const SerializedHeader& header) {
            if (header.total == 0) {
                return;
            }
            summary.count = header.total;
            summary.min = static_cast<int64_t>(header.min);
            summary.max = static_cast<int64_t>(header.max);
            summary.mean = static_cast<double>(header.sum) / static_cast<double>(header.total);
        },
        [](size_t, uint64_t) {});
    if (!valid) {
        return std::nullopt;
    }
    return summary;
}

} // namespace

std::optional<Histogram::Summary> Histogram::checkSerialized(std::string_view bytes) noexcept {
    // The whole walk, every rule of deserialize(), but nothing per bucket beyond the
    // rules themselves: no bucket array, no rank, no square.
    return headerFigures<true>(bytes);
}

std::optional<Histogram::Summary> Histogram::serializedHeader(std::string_view bytes) noexcept {
    return headerFigures<false>(bytes);
}

bool Histogram::mergeSerialized(std::string_view bytes) {
    // Checked whole first, so that a refused blob leaves this histogram as it was.
    const std::optional<Summary> totals = checkSerialized(bytes);
    if (!totals) {
        return false;
    }
    if (totals->count == 0) {
        return true;
    }
    if (m_counts.empty()) {
        allocateCounts(m_counts);
    }
    uint64_t* target = m_counts.data();
    uint64_t sum = 0;
    parseSerialized(
        bytes, [&sum](const SerializedHeader& header) { sum = header.sum; },
        [target](size_t index, uint64_t count) { target[index] += count; });
    m_total += totals->count;
    m_sum += sum;
    m_min = std::min(m_min, totals->min);
    m_max = std::max(m_max, totals->max);
    return true;
}

std::optional<Histogram::Summary>
Histogram::summarizeSerialized(std::string_view bytes, std::span<const double> percentiles) {
    // The same walk as valueAtPercentile() and stddev() over the used range, with the
    // zero buckets between runs skipped: they add nothing to a rank or a square.
    struct Pending {
        uint64_t rank;
        size_t slot;
    };
    Summary summary;
    summary.valuesAtPercentiles.assign(percentiles.size(), 0);
    std::vector<Pending> pending; // ranks still to reach, ascending
    size_t nextPending = 0;
    // The next rank to reach, and min and max, as locals: the walk over every bucket then
    // keeps them in registers instead of reloading them through `pending` and `summary`.
    uint64_t nextRank = std::numeric_limits<uint64_t>::max();
    int64_t lowest = 0;
    int64_t highest = 0;
    uint64_t seen = 0;
    double average = 0.0;
    double squares = 0.0;
    const bool valid = parseSerialized(
        bytes,
        [&](const SerializedHeader& header) {
            if (header.total == 0) {
                return;
            }
            summary.count = header.total;
            summary.min = static_cast<int64_t>(header.min);
            summary.max = static_cast<int64_t>(header.max);
            average = static_cast<double>(header.sum) / static_cast<double>(header.total);
            summary.mean = average;
            for (size_t slot = 0; slot < percentiles.size(); ++slot) {
                const double p = percentiles[slot];
                if (!(p > 0.0)) {
                    summary.valuesAtPercentiles[slot] = summary.min;
                } else if (p >= 100.0) {
                    summary.valuesAtPercentiles[slot] = summary.max;
                } else {
                    pending.push_back({rankAt(p, header.total), slot});
                }
            }
            std::sort(pending.begin(), pending.end(),
                      [](const Pending& a, const Pending& b) { return a.rank < b.rank; });
            if (!pending.empty()) {
                nextRank = pending.front().rank;
            }
            lowest = summary.min;
            highest = summary.max;
        },
        [&](size_t index, uint64_t count) {
            seen += count;
            const int64_t high = std::min(rawHighest(index), highest);
            if (nextRank <= seen) [[unlikely]] {
                while (nextPending < pending.size() && pending[nextPending].rank <= seen) {
                    summary.valuesAtPercentiles[pending[nextPending++].slot] = high;
                }
                nextRank = nextPending < pending.size() ? pending[nextPending].rank
                                                        : std::numeric_limits<uint64_t>::max();
            }
            const int64_t low = std::max(rawLowest(index), lowest);
            const double delta =
                (static_cast<double>(low) + static_cast<double>(high)) / 2.0 - average;
            squares += static_cast<double>(count) * delta * delta;
        });
    if (!valid) {
        return std::nullopt;
    }
    if (summary.count >= 2) {
        summary.stddev = std::sqrt(squares / static_cast<double>(summary.count - 1));
    }
    return summary;
}

} // namespace loadscope::engine
