#include "engine/histogram.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using loadscope::engine::Histogram;

namespace {

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kHour = Histogram::kHighestTrackable;

enum class Shape { Uniform, Lognormal, Bimodal, Minutes, Small, HeavyTail };

std::vector<int64_t> generate(Shape shape, size_t n, uint64_t seed) {
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

Histogram recordAll(const std::vector<int64_t>& values) {
    Histogram h;
    for (int64_t v : values) {
        h.record(v);
    }
    return h;
}

void addShapeRows() {
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
void putVarint(std::string& out, uint64_t v) {
    do {
        const auto low = static_cast<unsigned char>(v & 0x7F);
        v >>= 7;
        out.push_back(static_cast<char>(v ? (low | 0x80) : low));
    } while (v);
}

uint32_t bitwiseCrc32(const std::string& bytes) {
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
std::string reseal(std::string blob) {
    blob.resize(blob.size() - 4);
    const uint32_t crc = bitwiseCrc32(blob);
    for (int i = 0; i < 4; ++i) {
        blob.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
    }
    return blob;
}

std::string craft(const std::string& payload) {
    return reseal(std::string("LSHG\x01", 5) + payload + std::string(4, '\0'));
}

std::string varints(std::initializer_list<uint64_t> list) {
    std::string out;
    for (uint64_t v : list) {
        putVarint(out, v);
    }
    return out;
}

// What an accepted blob must satisfy: one spelling per histogram, and usable afterwards.
bool acceptedBlobIsSound(const std::string& blob, const Histogram& h) {
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
constexpr double kAskedPercentiles[] = {99.9, 50, 0,  100,   66,   75, -5,  80,    90,
                                        95,   98, 99, 99.99, 12.5, 50, 150, 0.0001};

// The one-pass reading refuses exactly what the decoder refuses.
bool readsAgree(std::string_view blob) {
    return Histogram::summarizeSerialized(blob, kAskedPercentiles).has_value() ==
           Histogram::deserialize(blob).has_value();
}

} // namespace

Q_DECLARE_METATYPE(Shape)
Q_DECLARE_METATYPE(std::vector<int64_t>)

class TestHistogram : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bucketsTileTheRange();
    void bucketPrecision_data();
    void bucketPrecision();
    void percentilesMatchSortedData_data() { addShapeRows(); }
    void percentilesMatchSortedData();
    void minMaxMeanAreExact_data() { addShapeRows(); }
    void minMaxMeanAreExact();
    void stddevIsCloseToExact_data() { addShapeRows(); }
    void stddevIsCloseToExact();
    void repeatedValueHasNoSpread();
    void stddevIsAbsSampleSpread();
    void recordNEqualsRepeatedRecord();
    void mergeEqualsRecordingInOne_data();
    void mergeEqualsRecordingInOne();
    void mergeWithItselfDoubles();
    void equalityNoticesDifferences();
    void clampsAboveOneHour();
    void negativeValuesCountAsZero();
    void emptyHistogram();
    void resetForgetsEverything();
    void movedFromIsEmptyAndUsable();
    void copiesAreEqualAndIndependent();
    void serializeRoundTrip_data();
    void serializeRoundTrip();
    void serializedFormIsCompact();
    void deserializeRejectsEveryTruncation_data() { addShapeRows(); }
    void deserializeRejectsEveryTruncation();
    void deserializeRejectsTrailingBytes();
    void deserializeRejectsBadMagicAndVersion();
    void deserializeRejectsEveryByteCorruption();
    void deserializeRejectsMalformedStructure_data();
    void deserializeRejectsMalformedStructure();
    void deserializeSurvivesRandomCorruption();
    void percentileDistributionIsMonotonic_data() { addShapeRows(); }
    void percentileDistributionIsMonotonic();
    void percentileDistributionKnownRows();
    void summaryEqualsDecodedFigures_data();
    void summaryEqualsDecodedFigures();
};

void TestHistogram::bucketsTileTheRange() {
    const size_t count = Histogram::bucketCount();
    QCOMPARE(Histogram::indexFor(0), size_t{0});
    QCOMPARE(Histogram::indexFor(kHour), count - 1);
    QCOMPARE(Histogram::lowestEquivalent(0), int64_t{0});
    QVERIFY(Histogram::highestEquivalent(count - 1) >= kHour);
    // Memory stays bounded: one counter per 1/2048 of an octave, no more.
    QVERIFY(count < 66'000);
    for (size_t i = 0; i + 1 < count; ++i) {
        const int64_t low = Histogram::lowestEquivalent(i);
        const int64_t high = Histogram::highestEquivalent(i);
        if (high < low || high + 1 != Histogram::lowestEquivalent(i + 1) ||
            Histogram::indexFor(low) != i || Histogram::indexFor(high) != i) {
            QFAIL(qPrintable(
                QStringLiteral("bucket %1 [%2, %3] breaks the tiling").arg(i).arg(low).arg(high)));
        }
    }
}

void TestHistogram::bucketPrecision_data() {
    QTest::addColumn<qint64>("value");
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{2047}, int64_t{2048},
                      int64_t{4095}, int64_t{4096}, int64_t{4097}, int64_t{123'456},
                      int64_t{999'999'999}, 59 * kSecond + 17, kHour - 1, kHour}) {
        QTest::addRow("%lld ns", static_cast<long long>(v)) << static_cast<qint64>(v);
    }
    for (int bit = 12; bit <= 41; bit += 3) {
        const int64_t p = int64_t{1} << bit;
        QTest::addRow("2^%d - 1", bit) << static_cast<qint64>(p - 1);
        QTest::addRow("2^%d", bit) << static_cast<qint64>(p);
    }
}

void TestHistogram::bucketPrecision() {
    QFETCH(qint64, value);
    const size_t index = Histogram::indexFor(value);
    const int64_t low = Histogram::lowestEquivalent(index);
    const int64_t high = Histogram::highestEquivalent(index);
    QVERIFY(low <= value && value <= high);
    if (value < 2048) {
        QCOMPARE(low, static_cast<int64_t>(value));
        QCOMPARE(high, static_cast<int64_t>(value));
    }
    // Relative error below 1/2048: no value in the bucket is further than that from another.
    QVERIFY2((high - low) * 2048 < std::max<int64_t>(low, 1),
             qPrintable(QStringLiteral("bucket [%1, %2]").arg(low).arg(high)));
}

void TestHistogram::percentilesMatchSortedData() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    std::vector<int64_t> values = generate(shape, static_cast<size_t>(size), 42);
    const Histogram h = recordAll(values);
    std::sort(values.begin(), values.end());
    const auto n = static_cast<uint64_t>(values.size());

    QCOMPARE(h.valueAtPercentile(0), values.front());
    QCOMPARE(h.valueAtPercentile(100), values.back());
    // Percentiles in thousandths, so the exact rank ceil(p/100 * n) is integer arithmetic.
    for (uint64_t milli : {1u, 100u, 1'000u, 10'000u, 25'000u, 50'000u, 66'000u, 75'000u, 80'000u,
                           90'000u, 95'000u, 98'000u, 99'000u, 99'900u, 99'990u, 99'999u}) {
        const uint64_t rank = std::max<uint64_t>(1, (milli * n + 99'999) / 100'000);
        const int64_t exact = values[rank - 1];
        const double percentile = static_cast<double>(milli) / 1000.0;
        const int64_t got = h.valueAtPercentile(percentile);
        const bool withinPrecision = got >= exact && (got - exact) * 2048 <= exact;
        QVERIFY2(withinPrecision,
                 qPrintable(
                     QStringLiteral("p%1: got %2, exact %3").arg(percentile).arg(got).arg(exact)));
        // HdrHistogram's rule: the upper edge of the exact value's bucket (never above max).
        QCOMPARE(got,
                 std::min(Histogram::highestEquivalent(Histogram::indexFor(exact)), values.back()));
    }
}

void TestHistogram::minMaxMeanAreExact() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    const std::vector<int64_t> values = generate(shape, static_cast<size_t>(size), 7);
    const Histogram h = recordAll(values);
    uint64_t sum = 0;
    for (int64_t v : values) {
        sum += static_cast<uint64_t>(v);
    }
    QCOMPARE(h.count(), static_cast<uint64_t>(values.size()));
    QCOMPARE(h.min(), *std::min_element(values.begin(), values.end()));
    QCOMPARE(h.max(), *std::max_element(values.begin(), values.end()));
    QCOMPARE(h.mean(), static_cast<double>(sum) / static_cast<double>(values.size()));
}

void TestHistogram::stddevIsCloseToExact() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    const std::vector<int64_t> values = generate(shape, static_cast<size_t>(size), 99);
    const Histogram h = recordAll(values);
    long double mean = 0;
    for (int64_t v : values) {
        mean += static_cast<long double>(v);
    }
    mean /= static_cast<long double>(values.size());
    long double squares = 0;
    long double rawSquares = 0;
    for (int64_t v : values) {
        const long double d = static_cast<long double>(v) - mean;
        squares += d * d;
        rawSquares += static_cast<long double>(v) * static_cast<long double>(v);
    }
    const auto n = static_cast<long double>(values.size());
    // ab's sd divides by n - 1.
    const auto exact = static_cast<double>(std::sqrt(squares / (n - 1)));
    const auto rms = static_cast<double>(std::sqrt(rawSquares / n));
    // Each value moves at most half a bucket (< v/4096) to its bucket's centre, so the spread
    // cannot move by more than the root mean square of those shifts.
    const double bound = rms / 4096.0 + exact * 1e-9 + 1e-9;
    QVERIFY2(
        std::abs(h.stddev() - exact) <= bound,
        qPrintable(
            QStringLiteral("sd %1, exact %2").arg(h.stddev(), 0, 'f', 3).arg(exact, 0, 'f', 3)));
}

void TestHistogram::stddevIsAbsSampleSpread() {
    // ab's Connection Times sd divides by done - 1: for 1000 and 2000 ns (exact
    // buckets) that is sqrt(500^2 * 2 / 1) = 707.1 ns, not the population's 500.
    Histogram h;
    h.record(1000);
    h.record(2000);
    QCOMPARE(h.stddev(), std::sqrt(500000.0));
    Histogram one;
    one.record(1234);
    QCOMPARE(one.stddev(), 0.0); // one value has no spread, as ab prints 0
}

void TestHistogram::repeatedValueHasNoSpread() {
    Histogram h;
    h.recordN(1'000'000'007, 1'000);
    QCOMPARE(h.stddev(), 0.0);
    QCOMPARE(h.mean(), 1'000'000'007.0);
    QCOMPARE(h.valueAtPercentile(50), int64_t{1'000'000'007});
    QCOMPARE(h.valueAtPercentile(99.99), int64_t{1'000'000'007});
}

void TestHistogram::recordNEqualsRepeatedRecord() {
    Histogram byN;
    Histogram oneByOne;
    for (int64_t v : {int64_t{3}, 70 * kUs, 2 * kSecond}) {
        byN.recordN(v, 5);
        for (int i = 0; i < 5; ++i) {
            oneByOne.record(v);
        }
    }
    byN.recordN(kHour - 1, 0); // a zero count must leave min, max and buckets alone
    QVERIFY(byN == oneByOne);
    QCOMPARE(byN.max(), 2 * kSecond);
}

void TestHistogram::mergeEqualsRecordingInOne_data() {
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<int>("parts");
    QTest::newRow("lognormal in 2") << Shape::Lognormal << 2;
    QTest::newRow("bimodal in 7") << Shape::Bimodal << 7;
    QTest::newRow("minutes in 64") << Shape::Minutes << 64;
    QTest::newRow("heavy tail in 5") << Shape::HeavyTail << 5;
}

void TestHistogram::mergeEqualsRecordingInOne() {
    QFETCH(Shape, shape);
    QFETCH(int, parts);
    const std::vector<int64_t> values = generate(shape, 50'000, 1234);
    const Histogram whole = recordAll(values);

    // Parts as worker threads would fill them: unequal, interleaved, one of them idle.
    std::vector<Histogram> perThread(static_cast<size_t>(parts) + 1);
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<size_t> pick(0, static_cast<size_t>(parts) - 1);
    for (int64_t v : values) {
        perThread[pick(rng)].record(v);
    }
    Histogram merged;
    for (const Histogram& part : perThread) {
        merged.merge(part);
    }
    QVERIFY(merged == whole);
    QCOMPARE(merged.serialize(), whole.serialize());
    QCOMPARE(merged.stddev(), whole.stddev());

    // Grouping does not matter: (a + b) + c == a + (b + c).
    Histogram left = perThread[0];
    left.merge(perThread[1]);
    left.merge(perThread.back());
    Histogram right = perThread[1];
    right.merge(perThread.back());
    Histogram rightTotal = perThread[0];
    rightTotal.merge(right);
    QVERIFY(left == rightTotal);
}

void TestHistogram::mergeWithItselfDoubles() {
    const std::vector<int64_t> values = generate(Shape::Bimodal, 10'000, 3);
    Histogram h = recordAll(values);
    Histogram twice;
    for (int64_t v : values) {
        twice.recordN(v, 2);
    }
    h.merge(h);
    QVERIFY(h == twice);
}

void TestHistogram::equalityNoticesDifferences() {
    auto make = [](std::initializer_list<int64_t> values) {
        Histogram h;
        for (int64_t v : values) {
            h.record(v);
        }
        return h;
    };
    // Same count, sum, min and max; only the buckets differ.
    QVERIFY(!(make({0, 3000, 3000, 6000}) == make({0, 2000, 4000, 6000})));
    // Same bucket (4096 and 4097 share one), different exact values.
    QVERIFY(!(make({4096}) == make({4097})));
    QVERIFY(!(make({10, 20}) == make({10, 20, 20})));
    QVERIFY(!(make({10}) == Histogram()));
    QVERIFY(make({0, 3000, 6000}) == make({6000, 0, 3000}));
}

void TestHistogram::clampsAboveOneHour() {
    Histogram h;
    h.record(kHour);
    h.record(kHour + 1);
    h.record(std::numeric_limits<int64_t>::max());
    h.recordN(2 * kHour, 3);
    QCOMPARE(h.count(), uint64_t{6});
    QCOMPARE(h.min(), kHour);
    QCOMPARE(h.max(), kHour);
    QCOMPARE(h.mean(), static_cast<double>(kHour));
    QCOMPARE(h.valueAtPercentile(50), kHour);
    QCOMPARE(h.stddev(), 0.0);
    h.record(5 * kMs);
    QCOMPARE(h.valueAtPercentile(10), Histogram::highestEquivalent(Histogram::indexFor(5 * kMs)));
    QCOMPARE(h.valueAtPercentile(99.999), kHour);
}

void TestHistogram::negativeValuesCountAsZero() {
    Histogram h;
    h.record(-5);
    h.record(std::numeric_limits<int64_t>::min());
    h.record(10);
    QCOMPARE(h.count(), uint64_t{3});
    QCOMPARE(h.min(), int64_t{0});
    QCOMPARE(h.valueAtPercentile(50), int64_t{0});
    QCOMPARE(h.mean(), 10.0 / 3.0);
}

void TestHistogram::emptyHistogram() {
    const Histogram h;
    QVERIFY(h.empty());
    QCOMPARE(h.count(), uint64_t{0});
    QCOMPARE(h.min(), int64_t{0});
    QCOMPARE(h.max(), int64_t{0});
    QCOMPARE(h.mean(), 0.0);
    QCOMPARE(h.stddev(), 0.0);
    QCOMPARE(h.valueAtPercentile(0), int64_t{0});
    QCOMPARE(h.valueAtPercentile(50), int64_t{0});
    QCOMPARE(h.valueAtPercentile(100), int64_t{0});
    QVERIFY(h.percentileDistribution().empty());

    const auto back = Histogram::deserialize(h.serialize());
    QVERIFY(back.has_value());
    QVERIFY(*back == h);
    QVERIFY(back->empty());

    Histogram target;
    target.record(777);
    const Histogram before = target;
    target.merge(h);
    QVERIFY(target == before);
    Histogram emptyTarget;
    emptyTarget.merge(before);
    QVERIFY(emptyTarget == before);
}

void TestHistogram::resetForgetsEverything() {
    Histogram h = recordAll(generate(Shape::HeavyTail, 20'000, 11));
    h.reset();
    QVERIFY(h == Histogram());
    QVERIFY(h.empty());
    QCOMPARE(h.max(), int64_t{0});

    // Stale counts outside the new range would show once the range widens again.
    const std::vector<int64_t> narrow = generate(Shape::Small, 1'000, 12);
    Histogram fresh;
    for (int64_t v : narrow) {
        h.record(v);
        fresh.record(v);
    }
    QVERIFY(h == fresh);
    h.record(0);
    h.record(kHour);
    fresh.record(0);
    fresh.record(kHour);
    QVERIFY(h == fresh);
    QCOMPARE(h.serialize(), fresh.serialize());
}

void TestHistogram::movedFromIsEmptyAndUsable() {
    Histogram source = recordAll(generate(Shape::Lognormal, 1'000, 21));
    const Histogram copy = source;

    Histogram taken(std::move(source));
    QVERIFY(taken == copy);
    QVERIFY(source.empty()); // NOLINT(bugprone-use-after-move): the contract under test
    QVERIFY(source == Histogram());
    source.record(42);
    QCOMPARE(source.count(), uint64_t{1});
    QCOMPARE(source.valueAtPercentile(50), int64_t{42});

    Histogram assigned;
    assigned.record(1);
    assigned = std::move(taken);
    QVERIFY(assigned == copy);
    QVERIFY(taken.empty()); // NOLINT(bugprone-use-after-move)
    taken.merge(copy);
    QVERIFY(taken == copy);
    taken.reset();
    QVERIFY(taken.empty());
}

void TestHistogram::copiesAreEqualAndIndependent() {
    const Histogram source = recordAll(generate(Shape::Lognormal, 1'000, 22));
    Histogram copy(source);
    QVERIFY(copy == source);
    QCOMPARE(copy.serialize(), source.serialize());
    copy.record(7);
    QCOMPARE(copy.count(), source.count() + 1);
    QCOMPARE(source.count(), uint64_t{1'000}); // the source is untouched

    // Assigning over counts in another range leaves none of them behind.
    Histogram assigned;
    assigned.record(kHour);
    assigned.record(1);
    assigned = source;
    QVERIFY(assigned == source);
    QCOMPARE(assigned.serialize(), source.serialize());
    QCOMPARE(assigned.valueAtPercentile(100), source.valueAtPercentile(100));

    // A reserved, still empty histogram copies as empty and records normally.
    Histogram reserved;
    reserved.reserve();
    Histogram reservedCopy(reserved);
    QVERIFY(reservedCopy.empty());
    reservedCopy.record(5);
    QCOMPARE(reservedCopy.valueAtPercentile(50), int64_t{5});
    QVERIFY(reserved.empty());
}

void TestHistogram::serializeRoundTrip_data() {
    addShapeRows();
    QTest::newRow("single value") << Shape::Uniform << 1;
    QTest::newRow("empty") << Shape::Uniform << 0;
}

void TestHistogram::serializeRoundTrip() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    Histogram h = recordAll(generate(shape, static_cast<size_t>(size), 31));
    if (size == 100'000) {
        h.recordN(kHour + 5, uint64_t{1} << 40); // large counts and the clamp survive too
    }
    const std::string blob = h.serialize();
    const auto back = Histogram::deserialize(blob);
    QVERIFY(back.has_value());
    QVERIFY(*back == h);
    QCOMPARE(back->serialize(), blob);
    QCOMPARE(back->stddev(), h.stddev());
    QCOMPARE(back->valueAtPercentile(99.9), h.valueAtPercentile(99.9));
}

void TestHistogram::serializedFormIsCompact() {
    const std::vector<int64_t> values = generate(Shape::Lognormal, 100'000, 8);
    const Histogram h = recordAll(values);
    std::vector<size_t> buckets;
    for (int64_t v : values) {
        buckets.push_back(Histogram::indexFor(v));
    }
    std::sort(buckets.begin(), buckets.end());
    const auto used =
        static_cast<size_t>(std::unique(buckets.begin(), buckets.end()) - buckets.begin());
    const size_t size = h.serialize().size();
    // Counts below 2^14 take at most two bytes; the zero runs between them add little.
    QVERIFY2(size <= 3 * used + 64,
             qPrintable(QStringLiteral("%1 bytes for %2 used buckets").arg(size).arg(used)));
    QCOMPARE(Histogram().serialize().size(), size_t{14});
}

void TestHistogram::deserializeRejectsEveryTruncation() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    const std::string blob =
        recordAll(generate(shape, static_cast<size_t>(std::min(size, 3'000)), 4)).serialize();
    for (size_t length = 0; length < blob.size(); ++length) {
        const std::string_view head = std::string_view(blob).substr(0, length);
        if (Histogram::deserialize(head) ||
            Histogram::summarizeSerialized(head, kAskedPercentiles)) {
            QFAIL(qPrintable(
                QStringLiteral("accepted the first %1 of %2 bytes").arg(length).arg(blob.size())));
        }
    }
    QVERIFY(Histogram::deserialize(blob).has_value());
}

void TestHistogram::deserializeRejectsTrailingBytes() {
    Histogram h;
    h.record(5 * kMs);
    const std::string blob = h.serialize();
    for (int byte = 0; byte < 256; ++byte) {
        QVERIFY(!Histogram::deserialize(blob + static_cast<char>(byte)));
    }
    QVERIFY(!Histogram::deserialize(blob + blob));
    // Extra bytes before the checksum, with the checksum made right.
    QVERIFY(!Histogram::deserialize(reseal(blob.substr(0, blob.size() - 4) + '\0' + "0000")));
}

void TestHistogram::deserializeRejectsBadMagicAndVersion() {
    Histogram h;
    h.record(12345);
    const std::string blob = h.serialize();
    for (size_t i = 0; i < 4; ++i) {
        std::string bad = blob;
        bad[i] = static_cast<char>(bad[i] ^ 0x20);
        QVERIFY(!Histogram::deserialize(reseal(bad)));
    }
    for (int version : {0, 2, 0x81, 0xFF}) {
        std::string bad = blob;
        bad[4] = static_cast<char>(version);
        QVERIFY(!Histogram::deserialize(reseal(bad)));
    }
    QVERIFY(Histogram::deserialize(reseal(blob)).has_value());
}

void TestHistogram::deserializeRejectsEveryByteCorruption() {
    const std::string blob = recordAll(generate(Shape::Bimodal, 2'000, 6)).serialize();
    for (size_t i = 0; i < blob.size(); ++i) {
        for (int mask : {0x01, 0x10, 0x80, 0xFF}) {
            std::string bad = blob;
            bad[i] = static_cast<char>(bad[i] ^ mask);
            if (Histogram::deserialize(bad) ||
                Histogram::summarizeSerialized(bad, kAskedPercentiles)) {
                QFAIL(qPrintable(QStringLiteral("accepted byte %1 xor %2").arg(i).arg(mask)));
            }
            // The same flip behind a right checksum reaches the structural checks.
            QVERIFY(readsAgree(reseal(bad)));
        }
    }
}

void TestHistogram::deserializeRejectsMalformedStructure_data() {
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<bool>("valid");
    auto row = [](const char* name, const std::string& payload, bool valid) {
        QTest::newRow(name) << QByteArray(payload.data(), static_cast<qsizetype>(payload.size()))
                            << valid;
    };
    const uint64_t buckets = Histogram::bucketCount();
    const uint64_t maxU64 = std::numeric_limits<uint64_t>::max();
    // Buckets 100 and 101 hold 2 and 3: values 100, 100, 101, 101, 101.
    row("valid two buckets", varints({5, 100, 101, 503, 1, 100, 2, 2, 3}), true);
    row("valid two runs", varints({3, 100, 200, 400, 2, 100, 1, 2, 99, 1, 1}), true);
    row("valid empty", varints({0, 0, 0, 0, 0}), true);
    row("empty with a minimum", varints({0, 5, 5, 0, 0}), false);
    row("empty with a run", varints({0, 0, 0, 0, 1, 0, 1, 1}), false);
    row("no runs", varints({5, 100, 101, 503, 0}), false);
    row("index beyond range", varints({1, 100, 100, 100, 1, buckets, 1, 1}), false);
    row("run past the end", varints({2, 100, 100, 200, 1, buckets - 1, 2, 1, 1}), false);
    row("zero-length run", varints({5, 100, 101, 503, 2, 100, 0, 1, 2, 2, 3}), false);
    row("zero count", varints({5, 100, 102, 503, 1, 100, 3, 2, 0, 3}), false);
    row("adjacent runs", varints({5, 100, 101, 503, 2, 100, 1, 2, 0, 1, 3}), false);
    row("counts overflow", varints({5, 100, 101, 502, 1, 100, 2, maxU64, 6}), false);
    row("total mismatch", varints({6, 100, 101, 503, 1, 100, 2, 2, 3}), false);
    row("min below first bucket", varints({5, 99, 101, 503, 1, 100, 2, 2, 3}), false);
    row("max beyond last bucket", varints({5, 100, 102, 503, 1, 100, 2, 2, 3}), false);
    row("min above max", varints({5, 101, 100, 503, 1, 100, 2, 2, 3}), false);
    row("max above 1 h",
        varints({1, static_cast<uint64_t>(kHour) + 1, static_cast<uint64_t>(kHour) + 1,
                 static_cast<uint64_t>(kHour) + 1, 1, buckets - 1, 1, 1}),
        false);
    row("sum below min * total", varints({5, 100, 101, 499, 1, 100, 2, 2, 3}), false);
    row("sum above max * total", varints({5, 100, 101, 506, 1, 100, 2, 2, 3}), false);
    row("one value, min != max", varints({1, 100, 101, 100, 1, 100, 1, 1}), false);
    row("missing runs", varints({5, 100, 101, 503, 2, 100, 2, 2, 3}), false);
    row("trailing byte", varints({5, 100, 101, 503, 1, 100, 2, 2, 3, 0}), false);
    row("truncated header", varints({5, 100, 101}), false);
    row("varint over 64 bits", std::string("\x85\x80\x80\x80\x80\x80\x80\x80\x80\x02", 10), false);
    row("varint of 11 bytes", std::string(10, '\x80') + std::string(1, '\x00'), false);
    row("padded varint", std::string("\x85\x00", 2) + varints({100, 101, 503, 1, 100, 2, 2, 3}),
        false);
}

void TestHistogram::deserializeRejectsMalformedStructure() {
    QFETCH(QByteArray, payload);
    QFETCH(bool, valid);
    const std::string blob = craft(payload.toStdString());
    const auto h = Histogram::deserialize(blob);
    QCOMPARE(h.has_value(), valid);
    QCOMPARE(Histogram::summarizeSerialized(blob, kAskedPercentiles).has_value(), valid);
    if (h) {
        QVERIFY(acceptedBlobIsSound(blob, *h));
    }
}

void TestHistogram::deserializeSurvivesRandomCorruption() {
    // Corruptions that keep the checksum right, so that only the structural checks stand
    // between the bytes and the counters; the asan preset watches every read.
    const std::string blob = recordAll(generate(Shape::Lognormal, 500, 17)).serialize();
    std::mt19937_64 rng(2024);
    int rejected = 0;
    const int trials = 20'000;
    for (int trial = 0; trial < trials; ++trial) {
        std::string bad = blob;
        std::uniform_int_distribution<size_t> position(5, blob.size() - 5);
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            bad[position(rng)] = static_cast<char>(rng() & 0xFF);
        }
        if (trial % 3 == 0) {
            bad.erase(position(rng), 1 + rng() % 3);
        } else if (trial % 3 == 1) {
            bad.insert(position(rng), 1 + rng() % 3, static_cast<char>(rng() & 0xFF));
        }
        bad = reseal(bad);
        if (!readsAgree(bad)) {
            QFAIL(qPrintable(QStringLiteral("trial %1: the readings disagree").arg(trial)));
        }
        if (const auto h = Histogram::deserialize(bad)) {
            if (!acceptedBlobIsSound(bad, *h)) {
                QFAIL(qPrintable(QStringLiteral("trial %1 accepted an unsound blob").arg(trial)));
            }
        } else {
            ++rejected;
        }
    }
    QVERIFY(rejected > trials * 9 / 10);

    // Short random payloads behind a valid header and checksum.
    for (int trial = 0; trial < 20'000; ++trial) {
        std::string payload(rng() % 24, '\0');
        for (char& c : payload) {
            c = static_cast<char>((rng() % 4 == 0) ? 0 : (rng() & 0xFF));
        }
        const std::string bad = craft(payload);
        QVERIFY(readsAgree(bad));
        if (const auto h = Histogram::deserialize(bad)) {
            QVERIFY(acceptedBlobIsSound(bad, *h));
        }
    }
}

void TestHistogram::percentileDistributionIsMonotonic() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    const Histogram h = recordAll(generate(shape, static_cast<size_t>(size), 55));
    const auto rows = h.percentileDistribution(5);
    QVERIFY(rows.size() >= 2);
    QCOMPARE(rows.front().percentile, 0.0);
    QCOMPARE(rows.front().valueNs, h.min());
    for (size_t i = 1; i < rows.size(); ++i) {
        QVERIFY(rows[i].valueNs >= rows[i - 1].valueNs);
        QVERIFY(rows[i].percentile > rows[i - 1].percentile);
        QVERIFY(rows[i].totalCount >= rows[i - 1].totalCount);
        if (i + 1 < rows.size()) {
            QCOMPARE(rows[i].valueNs, h.valueAtPercentile(rows[i].percentile));
            QVERIFY(rows[i].totalCount * 100 >=
                    static_cast<uint64_t>(rows[i].percentile * static_cast<double>(h.count())));
        }
    }
    QCOMPARE(rows.back().percentile, 100.0);
    QCOMPARE(rows.back().valueNs, h.max());
    QCOMPARE(rows.back().totalCount, h.count());
    QVERIFY(h.percentileDistribution(20).size() > rows.size() || size < 100);
}

void TestHistogram::percentileDistributionKnownRows() {
    Histogram h;
    for (int64_t v = 1; v <= 100; ++v) {
        h.record(v);
    }
    const auto rows = h.percentileDistribution(5);
    auto find = [&rows](double percentile) -> const Histogram::PercentilePoint* {
        for (const auto& row : rows) {
            if (row.percentile == percentile) {
                return &row;
            }
        }
        return nullptr;
    };
    // Steps of 10 up to 50 %, then 5 up to 75 %, 2.5 up to 87.5 %, 1.25 beyond: five rows
    // for every halving of the distance to 100 %.
    for (double p : {10.0, 20.0, 50.0, 55.0, 75.0, 77.5, 87.5, 88.75}) {
        const auto* row = find(p);
        QVERIFY2(row, qPrintable(QStringLiteral("no row at %1 %").arg(p)));
        const auto expected = static_cast<int64_t>(std::ceil(p));
        QCOMPARE(row->valueNs, expected);
        QCOMPARE(row->totalCount, static_cast<uint64_t>(expected));
    }
    QVERIFY(!find(52.5));
    QVERIFY(!find(76.0));
    QCOMPARE(rows.front().valueNs, int64_t{1});
    QCOMPARE(rows.back().valueNs, int64_t{100});
    QCOMPARE(rows.back().percentile, 100.0);
}

void TestHistogram::summaryEqualsDecodedFigures_data() {
    QTest::addColumn<std::vector<int64_t>>("values");
    QTest::newRow("uniform 0-1 ms") << generate(Shape::Uniform, 100'000, 71);
    QTest::newRow("lognormal") << generate(Shape::Lognormal, 100'000, 72);
    QTest::newRow("bimodal") << generate(Shape::Bimodal, 100'000, 73);
    QTest::newRow("uniform 0-10 min") << generate(Shape::Minutes, 100'000, 74);
    QTest::newRow("small exact values") << generate(Shape::Small, 50'000, 75);
    QTest::newRow("heavy tail") << generate(Shape::HeavyTail, 100'000, 76);
    QTest::newRow("few values") << generate(Shape::Lognormal, 7, 77);
    QTest::newRow("empty") << std::vector<int64_t>{};
    QTest::newRow("one value") << std::vector<int64_t>{1234567};
    QTest::newRow("zero only") << std::vector<int64_t>{0, 0, 0};
    QTest::newRow("one repeated value") << std::vector<int64_t>(1000, 42 * kMs);
    QTest::newRow("one hour") << std::vector<int64_t>{kHour, kHour, 1};
    QTest::newRow("two far apart") << std::vector<int64_t>{1, kHour};
    QTest::newRow("exact range edge") << std::vector<int64_t>{2047, 2048, 4095, 4096, 4097};
}

void TestHistogram::summaryEqualsDecodedFigures() {
    QFETCH(std::vector<int64_t>, values);
    const Histogram h = recordAll(values);
    const std::string blob = h.serialize();
    const auto decoded = Histogram::deserialize(blob);
    QVERIFY(decoded.has_value());
    const auto summary = Histogram::summarizeSerialized(blob, kAskedPercentiles);
    QVERIFY(summary.has_value());
    QCOMPARE(summary->count, decoded->count());
    QCOMPARE(summary->min, decoded->min());
    QCOMPARE(summary->max, decoded->max());
    // The same sums in the same order: equal to the last bit, not merely close.
    QCOMPARE(summary->mean, decoded->mean());
    QCOMPARE(summary->stddev, decoded->stddev());
    QCOMPARE(summary->valuesAtPercentiles.size(), std::size(kAskedPercentiles));
    for (size_t i = 0; i < std::size(kAskedPercentiles); ++i) {
        QVERIFY2(summary->valuesAtPercentiles[i] ==
                     decoded->valueAtPercentile(kAskedPercentiles[i]),
                 qPrintable(QStringLiteral("p%1: %2 vs %3")
                                .arg(kAskedPercentiles[i])
                                .arg(summary->valuesAtPercentiles[i])
                                .arg(decoded->valueAtPercentile(kAskedPercentiles[i]))));
    }
    QVERIFY(Histogram::summarizeSerialized(blob, {})->valuesAtPercentiles.empty());
}

QTEST_GUILESS_MAIN(TestHistogram)
#include "tst_histogram.moc"
