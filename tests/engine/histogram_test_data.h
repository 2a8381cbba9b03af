#pragma once

// Data and helpers shared by the histogram suites (tst_histogram for recording,
// merging and percentiles; tst_histogram_serialization for the byte form).
#include "engine/histogram.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace loadscope::testing::histograms {

using loadscope::engine::Histogram;

inline constexpr int64_t kUs = 1'000;
inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kHour = Histogram::kHighestTrackable;

enum class Shape { Uniform, Lognormal, Bimodal, Minutes, Small, HeavyTail };

inline std::vector<int64_t> generate(Shape shape, size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int64_t> values;
    values.reserve(n);
    auto clampNs = [](double v) {
        return static_cast<int64_t>(std::clamp(v, 0.0, static_cast<double>(kHour)));
    };
    std::uniform_int_distribution<int64_t> uniform(0, kMs);
    std::lognormal_distribution<double> lognormal(std::log(300.0 * kUs), 1.2);
    std::normal_distribution<double> fast(80.0 * kUs, 10.0 * kUs);
    std::normal_distribution<double> slow(40.0 * kMs, 5.0 * kMs);
    std::bernoulli_distribution isSlow(0.1);
    std::uniform_int_distribution<int64_t> minutes(0, 10 * 60 * kSecond);
    std::uniform_int_distribution<int64_t> small(0, 5'000);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (size_t i = 0; i < n; ++i) {
        switch (shape) {
        case Shape::Uniform:
            values.push_back(uniform(rng));
            break;
        case Shape::Lognormal:
            values.push_back(clampNs(lognormal(rng)));
            break;
        case Shape::Bimodal:
            values.push_back(clampNs(isSlow(rng) ? slow(rng) : fast(rng)));
            break;
        case Shape::Minutes:
            values.push_back(minutes(rng));
            break;
        case Shape::Small:
            values.push_back(small(rng));
            break;
        case Shape::HeavyTail:
            // Pareto, alpha 1.1 from 50 us: reaches minutes and, rarely, the 1 h clamp.
            values.push_back(clampNs(50.0 * kUs / std::pow(1.0 - unit(rng), 1.0 / 1.1)));
            break;
        }
    }
    return values;
}

inline Histogram recordAll(const std::vector<int64_t>& values) {
    Histogram h;
    for (int64_t v : values) {
        h.record(v);
    }
    return h;
}

inline void addShapeRows() {
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<int>("size");
    QTest::newRow("uniform 0-1 ms") << Shape::Uniform << 100'000;
    QTest::newRow("lognormal") << Shape::Lognormal << 100'000;
    QTest::newRow("bimodal") << Shape::Bimodal << 100'000;
    QTest::newRow("uniform 0-10 min") << Shape::Minutes << 100'000;
    QTest::newRow("small exact values") << Shape::Small << 50'000;
    QTest::newRow("heavy tail") << Shape::HeavyTail << 100'000;
    QTest::newRow("few values") << Shape::Lognormal << 7;
}

// The byte form's integers, written independently of the implementation so that crafted
// blobs test the reader rather than mirror the writer.
inline void putVarint(std::string& out, uint64_t v) {
    do {
        const auto low = static_cast<unsigned char>(v & 0x7F);
        v >>= 7;
        out.push_back(static_cast<char>(v ? (low | 0x80) : low));
    } while (v);
}

inline uint32_t bitwiseCrc32(const std::string& bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (char ch : bytes) {
        crc ^= static_cast<unsigned char>(ch);
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

// Replaces the trailing checksum so that only the structure under test can be wrong.
inline std::string reseal(std::string blob) {
    blob.resize(blob.size() - 4);
    const uint32_t crc = bitwiseCrc32(blob);
    for (int i = 0; i < 4; ++i) {
        blob.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
    }
    return blob;
}

inline std::string craft(const std::string& payload) {
    return reseal(std::string("LSHG\x01", 5) + payload + std::string(4, '\0'));
}

inline std::string varints(std::initializer_list<uint64_t> list) {
    std::string out;
    for (uint64_t v : list) {
        putVarint(out, v);
    }
    return out;
}

// What an accepted blob must satisfy: one spelling per histogram, and usable afterwards.
inline bool acceptedBlobIsSound(const std::string& blob, const Histogram& h) {
    if (h.serialize() != blob) {
        return false;
    }
    Histogram copy = h;
    copy.merge(h);
    copy.record(1234);
    return h.valueAtPercentile(100) == h.max() && h.valueAtPercentile(0) == h.min() &&
           h.percentileDistribution().size() != 1 && copy.count() == 2 * h.count() + 1;
}

// Out of order, outside [0, 100] and repeated, as a caller might pass them.
inline constexpr double kAskedPercentiles[] = {99.9, 50, 0,  100,   66,   75, -5,  80,    90,
                                               95,   98, 99, 99.99, 12.5, 50, 150, 0.0001};

// The one-pass readings refuse exactly what the decoder refuses, and a refused
// merge leaves its histogram as it was.
inline bool readsAgree(std::string_view blob) {
    const bool valid = Histogram::deserialize(blob).has_value();
    Histogram into;
    into.record(7);
    const bool merged = into.mergeSerialized(blob);
    return Histogram::summarizeSerialized(blob, kAskedPercentiles).has_value() == valid &&
           Histogram::checkSerialized(blob).has_value() == valid && merged == valid &&
           (merged || (into.count() == 1 && into.min() == 7 && into.max() == 7));
}

} // namespace loadscope::testing::histograms

Q_DECLARE_METATYPE(loadscope::testing::histograms::Shape)
Q_DECLARE_METATYPE(std::vector<int64_t>)
