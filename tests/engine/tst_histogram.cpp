// Histogram: buckets, recording, merging, percentiles against sorted data.
#include "engine/histogram.h"
#include "histogram_test_data.h"

#include <QTest>

using loadscope::engine::Histogram;
using namespace loadscope::testing::histograms;

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
    void percentileDistributionIsMonotonic_data() { addShapeRows(); }
    void percentileDistributionIsMonotonic();
    void percentileDistributionKnownRows();
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

QTEST_GUILESS_MAIN(TestHistogram)
#include "tst_histogram.moc"
