#include "engine/key_pattern.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

using namespace loadscope::engine;

namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

KeyPatternSpec makeSpec(KeyPattern pattern, uint64_t minimum, uint64_t maximum) {
    KeyPatternSpec spec;
    spec.pattern = pattern;
    spec.minimum = minimum;
    spec.maximum = maximum;
    return spec;
}

__extension__ typedef unsigned __int128 Uint128;

// Pearson's statistic of `draws` keys over `bins` slices of the range whose
// sizes differ by at most one key.
double chiSquare(KeyGenerator& keys, uint64_t minimum, uint64_t maximum, size_t bins,
                 size_t draws) {
    const Uint128 size = Uint128(maximum - minimum) + 1;
    std::vector<uint64_t> counts(bins);
    for (size_t i = 0; i < draws; ++i) {
        const uint64_t offset = keys.next() - minimum;
        counts[size_t(Uint128(offset) * bins / size)] += 1;
    }
    const double expected = double(draws) / double(bins);
    double chi = 0;
    for (uint64_t c : counts)
        chi += (double(c) - expected) * (double(c) - expected) / expected;
    return chi;
}

} // namespace

class TestKeyPattern : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void letters();
    void rangeRespected_data();
    void rangeRespected();
    void sequentialWalksAndWraps();
    void sequentialStartOffsets();
    void gaussianCentredWithSpread_data();
    void gaussianCentredWithSpread();
    void gaussianNarrowRangeStaysInside();
    void randomIsUniform_data();
    void randomIsUniform();
    void boundedDrawIsUnbiased();
    void deterministicBySeed_data();
    void deterministicBySeed();
    void derivedSeedsDiffer();
    void formatting();
    void validation();
};

void TestKeyPattern::letters() {
    for (KeyPattern p : {KeyPattern::Random, KeyPattern::Sequential, KeyPattern::Gaussian})
        QCOMPARE(int(*keyPatternFromLetter(keyPatternLetter(p))), int(p));
    QCOMPARE(keyPatternLetter(KeyPattern::Random), 'R');
    QCOMPARE(keyPatternLetter(KeyPattern::Sequential), 'S');
    QCOMPARE(keyPatternLetter(KeyPattern::Gaussian), 'G');
    QVERIFY(!keyPatternFromLetter('r'));
    QVERIFY(!keyPatternFromLetter('P'));
}

void TestKeyPattern::rangeRespected_data() {
    QTest::addColumn<int>("pattern");
    QTest::addColumn<uint64_t>("minimum");
    QTest::addColumn<uint64_t>("maximum");
    QTest::addColumn<bool>("reachesBothEnds");

    const struct {
        const char* name;
        uint64_t minimum;
        uint64_t maximum;
        bool small;
    } ranges[] = {
        {"single key 0", 0, 0, true},      {"single key 5", 5, 5, true},
        {"two keys", 0, 1, true},          {"100 keys", 100, 199, true},
        {"default", 0, 10'000'000, false}, {"top of uint64", kMax64 - 10, kMax64, true},
        {"full uint64", 0, kMax64, false},
    };
    for (KeyPattern p : {KeyPattern::Random, KeyPattern::Sequential, KeyPattern::Gaussian}) {
        for (const auto& r : ranges) {
            // A gaussian over a few keys visits the ends; over millions it need not.
            QTest::addRow("%c %s", keyPatternLetter(p), r.name)
                << int(p) << r.minimum << r.maximum << r.small;
        }
    }
}

void TestKeyPattern::rangeRespected() {
    QFETCH(int, pattern);
    QFETCH(uint64_t, minimum);
    QFETCH(uint64_t, maximum);
    QFETCH(bool, reachesBothEnds);

    KeyGenerator keys(makeSpec(KeyPattern(pattern), minimum, maximum), 12345, 3);
    uint64_t lowest = kMax64;
    uint64_t highest = 0;
    for (int i = 0; i < 100'000; ++i) {
        const uint64_t k = keys.next();
        QVERIFY(k >= minimum);
        QVERIFY(k <= maximum);
        lowest = std::min(lowest, k);
        highest = std::max(highest, k);
    }
    if (reachesBothEnds) {
        QCOMPARE(lowest, minimum);
        QCOMPARE(highest, maximum);
    }
}

void TestKeyPattern::sequentialWalksAndWraps() {
    KeyGenerator keys(makeSpec(KeyPattern::Sequential, 10, 14), 1, 3);
    std::vector<uint64_t> seen;
    for (int i = 0; i < 12; ++i)
        seen.push_back(keys.next());
    QCOMPARE(seen, (std::vector<uint64_t>{13, 14, 10, 11, 12, 13, 14, 10, 11, 12, 13, 14}));

    // The offset is taken modulo the range.
    KeyGenerator wrapped(makeSpec(KeyPattern::Sequential, 10, 14), 1, 8);
    QCOMPARE(wrapped.next(), uint64_t(13));

    // The seed plays no part in a sequential walk.
    KeyGenerator a(makeSpec(KeyPattern::Sequential, 0, 1000), 1, 0);
    KeyGenerator b(makeSpec(KeyPattern::Sequential, 0, 1000), 2, 0);
    for (uint64_t i = 0; i < 3000; ++i) {
        const uint64_t k = a.next();
        QCOMPARE(k, i % 1001);
        QCOMPARE(b.next(), k);
    }

    KeyGenerator top(makeSpec(KeyPattern::Sequential, 0, kMax64), 1, kMax64 - 1);
    QCOMPARE(top.next(), kMax64 - 1);
    QCOMPARE(top.next(), kMax64);
    QCOMPARE(top.next(), uint64_t(0));
}

void TestKeyPattern::sequentialStartOffsets() {
    // Known count: evenly spaced.
    for (uint32_t c = 0; c < 4; ++c)
        QCOMPARE(sequentialStartOffset(c, 4, 100), uint64_t(25) * c);
    QCOMPARE(sequentialStartOffset(7, 3, 10), uint64_t(3));      // index 7 is slot 1 of 3
    QCOMPARE(sequentialStartOffset(1, 2, 0), uint64_t(1) << 63); // 2^64 keys

    // Unknown count: distinct, inside the range, and well apart for a few connections.
    std::set<uint64_t> starts;
    for (uint32_t c = 0; c < 1000; ++c) {
        const uint64_t s = sequentialStartOffset(c, 0, 10'000'001);
        QVERIFY(s < 10'000'001);
        starts.insert(s);
    }
    QCOMPARE(starts.size(), size_t(1000));
    std::vector<uint64_t> firstFew;
    for (uint32_t c = 0; c < 5; ++c)
        firstFew.push_back(sequentialStartOffset(c, 0, 10'000'001));
    std::sort(firstFew.begin(), firstFew.end());
    for (size_t i = 1; i < firstFew.size(); ++i)
        QVERIFY(firstFew[i] - firstFew[i - 1] > 1'000'000);
}

void TestKeyPattern::gaussianCentredWithSpread_data() {
    QTest::addColumn<uint64_t>("minimum");
    QTest::addColumn<uint64_t>("maximum");
    QTest::addColumn<double>("stddev");
    QTest::addColumn<double>("median");
    QTest::addColumn<double>("expectedMean");
    QTest::addColumn<double>("expectedStddev");

    // Redrawing beyond +-3 sd truncates the normal: its sd shrinks by 1.3 %.
    const double truncated = 0.98658;
    QTest::newRow("default range") << uint64_t(0) << uint64_t(10'000'000) << 0.0 << -1.0
                                   << 5'000'000.0 << 10'000'000.0 / 6 * truncated;
    QTest::newRow("offset range") << uint64_t(1000) << uint64_t(2000) << 0.0 << -1.0 << 1500.0
                                  << 1000.0 / 6 * truncated;
    QTest::newRow("explicit sd and median")
        << uint64_t(0) << uint64_t(1'000'000) << 10.0 << 1000.0 << 1000.0 << 10.0;
}

void TestKeyPattern::gaussianCentredWithSpread() {
    QFETCH(uint64_t, minimum);
    QFETCH(uint64_t, maximum);
    QFETCH(double, stddev);
    QFETCH(double, median);
    QFETCH(double, expectedMean);
    QFETCH(double, expectedStddev);

    KeyPatternSpec spec = makeSpec(KeyPattern::Gaussian, minimum, maximum);
    spec.stddev = stddev;
    if (median >= 0)
        spec.median = median;
    KeyGenerator keys(spec, 2024);

    constexpr int kDraws = 400'000;
    double sum = 0;
    double sumSquares = 0;
    int withinOneSd = 0;
    for (int i = 0; i < kDraws; ++i) {
        const double k = double(keys.next());
        sum += k;
        sumSquares += k * k;
        if (std::abs(k - expectedMean) <= expectedStddev / 0.98658)
            ++withinOneSd;
    }
    const double mean = sum / kDraws;
    const double sd = std::sqrt(sumSquares / kDraws - mean * mean);
    // Five standard errors of the mean; two per cent of the spread.
    QVERIFY2(std::abs(mean - expectedMean) < 5 * expectedStddev / std::sqrt(double(kDraws)) + 0.5,
             qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(sd - expectedStddev) < 0.02 * expectedStddev + 0.5,
             qPrintable(QString::number(sd)));
    const double fraction = double(withinOneSd) / kDraws;
    if (expectedStddev > 100) // rounding to integers blurs a narrow bell
        QVERIFY2(std::abs(fraction - 0.6845) < 0.01, qPrintable(QString::number(fraction)));
}

void TestKeyPattern::gaussianNarrowRangeStaysInside() {
    // A median at the edge and a spread far wider than the range: redraws fail
    // often and clamping has the last word, never leaving the range.
    KeyPatternSpec spec = makeSpec(KeyPattern::Gaussian, 50, 60);
    spec.median = 50;
    spec.stddev = 1000;
    KeyGenerator keys(spec, 3);
    std::set<uint64_t> seen;
    for (int i = 0; i < 20'000; ++i) {
        const uint64_t k = keys.next();
        QVERIFY(k >= 50 && k <= 60);
        seen.insert(k);
    }
    QCOMPARE(seen.size(), size_t(11));
}

void TestKeyPattern::randomIsUniform_data() {
    QTest::addColumn<uint64_t>("minimum");
    QTest::addColumn<uint64_t>("maximum");
    QTest::addColumn<uint64_t>("seed");
    QTest::newRow("100 keys") << uint64_t(0) << uint64_t(99) << uint64_t(1);
    QTest::newRow("default range") << uint64_t(0) << uint64_t(10'000'000) << uint64_t(77);
    QTest::newRow("odd range") << uint64_t(333) << uint64_t(333 + 1'000'002) << uint64_t(5);
    QTest::newRow("full uint64") << uint64_t(0) << kMax64 << uint64_t(9);
}

void TestKeyPattern::randomIsUniform() {
    QFETCH(uint64_t, minimum);
    QFETCH(uint64_t, maximum);
    QFETCH(uint64_t, seed);
    KeyGenerator keys(makeSpec(KeyPattern::Random, minimum, maximum), seed);
    // 99 degrees of freedom: mean 99, sd 14; 200 is p < 1e-8 for a uniform source.
    const double chi = chiSquare(keys, minimum, maximum, 100, 1'000'000);
    QVERIFY2(chi < 200, qPrintable(QString::number(chi)));
    // Something far from uniform must fail the same bound, or the test proves nothing.
    KeyGenerator skewed(makeSpec(KeyPattern::Gaussian, minimum, maximum), seed);
    QVERIFY(chiSquare(skewed, minimum, maximum, 100, 1'000'000) > 200);
}

void TestKeyPattern::boundedDrawIsUnbiased() {
    Xoshiro256 random(11);
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(random.below(1), uint64_t(0));
    // 2^63 + 1: plain modulo would make the lower half twice as likely.
    const uint64_t bound = (uint64_t(1) << 63) + 1;
    int lowerHalf = 0;
    constexpr int kDraws = 200'000;
    for (int i = 0; i < kDraws; ++i) {
        const uint64_t v = random.below(bound);
        QVERIFY(v < bound);
        lowerHalf += v < bound / 2;
    }
    QVERIFY2(std::abs(double(lowerHalf) / kDraws - 0.5) < 0.01,
             qPrintable(QString::number(lowerHalf)));
    for (int i = 0; i < 1000; ++i) {
        const double d = random.nextDouble();
        QVERIFY(d >= 0.0 && d < 1.0);
    }
}

void TestKeyPattern::deterministicBySeed_data() {
    QTest::addColumn<int>("pattern");
    QTest::newRow("R") << int(KeyPattern::Random);
    QTest::newRow("G") << int(KeyPattern::Gaussian);
}

void TestKeyPattern::deterministicBySeed() {
    QFETCH(int, pattern);
    const KeyPatternSpec spec = makeSpec(KeyPattern(pattern), 0, 10'000'000);
    auto draw = [&](uint64_t seed) {
        KeyGenerator keys(spec, seed);
        std::vector<uint64_t> v;
        for (int i = 0; i < 1000; ++i)
            v.push_back(keys.next());
        return v;
    };
    QCOMPARE(draw(1), draw(1));
    QCOMPARE(draw(0), draw(0));
    QVERIFY(draw(1) != draw(2));
    QVERIFY(draw(0) != draw(1));

    // Fixed expectations: the sequence must not change between builds or
    // platforms, or stored sessions would no longer replay the same keys.
    SplitMix64 mixer(0);
    QCOMPARE(mixer.next(), uint64_t(0xe220a8397b1dcdafULL));
    QCOMPARE(mixer.next(), uint64_t(0x6e789e6aa1b965f4ULL));
    Xoshiro256 random(0); // state from SplitMix64(0), as above
    QCOMPARE(random.next(), uint64_t(0x99ec5f36cb75f2b4ULL));
    QCOMPARE(random.next(), uint64_t(0xbf6e1f784956452aULL));
}

void TestKeyPattern::derivedSeedsDiffer() {
    std::set<uint64_t> seeds;
    for (uint64_t run : {0, 1, 2})
        for (uint64_t connection = 0; connection < 100; ++connection)
            for (uint64_t stream = 0; stream < 3; ++stream)
                seeds.insert(deriveSeed(run, connection, stream));
    QCOMPARE(seeds.size(), size_t(900));
    QCOMPARE(deriveSeed(5, 6, 7), deriveSeed(5, 6, 7));
}

void TestKeyPattern::formatting() {
    KeyFormatter keys("memtier-");
    QCOMPARE(keys.maxLength(), size_t(28));
    std::string out;
    keys.append(out, 0);
    QCOMPARE(out, std::string("memtier-0"));
    out += ' ';
    keys.append(out, kMax64);
    QCOMPARE(out, std::string("memtier-0 memtier-18446744073709551615"));

    KeyFormatter bare("");
    out.clear();
    bare.append(out, 1234567);
    QCOMPARE(out, std::string("1234567"));

    // Once the buffer has grown, formatting keys does not reallocate it.
    out.clear();
    out.reserve(4096);
    const char* buffer = out.data();
    for (uint64_t k = 0; k < 100; ++k)
        keys.append(out, k * 99991);
    QCOMPARE(static_cast<const void*>(out.data()), static_cast<const void*>(buffer));
    QVERIFY(out.ends_with("memtier-9899109"));
}

void TestKeyPattern::validation() {
    QVERIFY(!validateKeyPatternSpec(KeyPatternSpec{}));
    QVERIFY(validateKeyPatternSpec(makeSpec(KeyPattern::Random, 5, 4)));
    KeyPatternSpec spec;
    spec.stddev = -1;
    QVERIFY(validateKeyPatternSpec(spec));
    spec.stddev = std::numeric_limits<double>::infinity();
    QVERIFY(validateKeyPatternSpec(spec));
    spec = {};
    spec.median = -1;
    QVERIFY(validateKeyPatternSpec(spec));
    spec.median = 10'000'001;
    QVERIFY(validateKeyPatternSpec(spec));
    spec.median = 10'000'000;
    QVERIFY(!validateKeyPatternSpec(spec));
}

QTEST_GUILESS_MAIN(TestKeyPattern)
#include "tst_key_pattern.moc"
