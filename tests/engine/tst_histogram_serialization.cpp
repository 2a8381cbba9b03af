// Histogram's byte form: round trips, refusal of every corruption, and the
// one-pass summary of stored bytes against the decoded histogram.
#include "engine/histogram.h"
#include "histogram_test_data.h"

#include <QTest>
#include <cmath>

using loadscope::engine::Histogram;
using namespace loadscope::testing::histograms;

class TestHistogramSerialization : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
    void summaryEqualsDecodedFigures_data();
    void summaryEqualsDecodedFigures();
    void checkGivesTheHeaderFigures();
    void mergeSerializedAddsKnownValues();
};

void TestHistogramSerialization::serializeRoundTrip_data() {
    addShapeRows();
    QTest::newRow("single value") << Shape::Uniform << 1;
    QTest::newRow("empty") << Shape::Uniform << 0;
}

void TestHistogramSerialization::serializeRoundTrip() {
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

void TestHistogramSerialization::serializedFormIsCompact() {
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

void TestHistogramSerialization::deserializeRejectsEveryTruncation() {
    QFETCH(Shape, shape);
    QFETCH(int, size);
    const std::string blob =
        recordAll(generate(shape, static_cast<size_t>(std::min(size, 3'000)), 4)).serialize();
    for (size_t length = 0; length < blob.size(); ++length) {
        const std::string_view head = std::string_view(blob).substr(0, length);
        if (Histogram::deserialize(head) ||
            Histogram::summarizeSerialized(head, kAskedPercentiles) ||
            Histogram::serializedHeader(head)) {
            QFAIL(qPrintable(
                QStringLiteral("accepted the first %1 of %2 bytes").arg(length).arg(blob.size())));
        }
    }
    QVERIFY(Histogram::deserialize(blob).has_value());
}

void TestHistogramSerialization::deserializeRejectsTrailingBytes() {
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

void TestHistogramSerialization::deserializeRejectsBadMagicAndVersion() {
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

void TestHistogramSerialization::deserializeRejectsEveryByteCorruption() {
    const std::string blob = recordAll(generate(Shape::Bimodal, 2'000, 6)).serialize();
    for (size_t i = 0; i < blob.size(); ++i) {
        for (int mask : {0x01, 0x10, 0x80, 0xFF}) {
            std::string bad = blob;
            bad[i] = static_cast<char>(bad[i] ^ mask);
            if (Histogram::deserialize(bad) ||
                Histogram::summarizeSerialized(bad, kAskedPercentiles) ||
                Histogram::checkSerialized(bad) || Histogram::serializedHeader(bad)) {
                QFAIL(qPrintable(QStringLiteral("accepted byte %1 xor %2").arg(i).arg(mask)));
            }
            // The same flip behind a right checksum reaches the structural checks.
            QVERIFY(readsAgree(reseal(bad)));
        }
    }
}

void TestHistogramSerialization::deserializeRejectsMalformedStructure_data() {
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

void TestHistogramSerialization::deserializeRejectsMalformedStructure() {
    QFETCH(QByteArray, payload);
    QFETCH(bool, valid);
    const std::string blob = craft(payload.toStdString());
    const auto h = Histogram::deserialize(blob);
    QCOMPARE(h.has_value(), valid);
    QCOMPARE(Histogram::summarizeSerialized(blob, kAskedPercentiles).has_value(), valid);
    QVERIFY(readsAgree(blob));
    if (h) {
        QVERIFY(acceptedBlobIsSound(blob, *h));
    }
}

void TestHistogramSerialization::deserializeSurvivesRandomCorruption() {
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

void TestHistogramSerialization::summaryEqualsDecodedFigures_data() {
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

void TestHistogramSerialization::summaryEqualsDecodedFigures() {
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

void TestHistogramSerialization::checkGivesTheHeaderFigures() {
    // 1, 2, ..., 1000 µs once each: min 1 µs, max 1 ms, mean 500.5 µs exactly.
    Histogram h;
    for (int64_t us = 1; us <= 1000; ++us) {
        h.record(us * 1000);
    }
    const auto checked = Histogram::checkSerialized(h.serialize());
    QVERIFY(checked.has_value());
    QCOMPARE(checked->count, uint64_t{1000});
    QCOMPARE(checked->min, int64_t{1000});
    QCOMPARE(checked->max, int64_t{1'000'000});
    QCOMPARE(checked->mean, 500'500.0);
    QVERIFY(checked->valuesAtPercentiles.empty());
    const auto header = Histogram::serializedHeader(h.serialize());
    QVERIFY(header.has_value());
    QCOMPARE(header->count, checked->count);
    QCOMPARE(header->min, checked->min);
    QCOMPARE(header->max, checked->max);
    QCOMPARE(header->mean, checked->mean);
    const auto empty = Histogram::checkSerialized(Histogram().serialize());
    QVERIFY(empty.has_value());
    QCOMPARE(empty->count, uint64_t{0});
}

void TestHistogramSerialization::mergeSerializedAddsKnownValues() {
    // 1 ... 1000 µs in one stored histogram and 1001 ... 2000 µs in another: merged,
    // 2000 values whose median is 1000 µs and whose mean is 1000.5 µs.
    Histogram low;
    Histogram high;
    for (int64_t us = 1; us <= 1000; ++us) {
        low.record(us * 1000);
        high.record((us + 1000) * 1000);
    }
    Histogram merged;
    QVERIFY(merged.mergeSerialized(low.serialize()));
    QVERIFY(merged.mergeSerialized(high.serialize()));
    QVERIFY(merged.mergeSerialized(Histogram().serialize()));
    QCOMPARE(merged.count(), uint64_t{2000});
    QCOMPARE(merged.min(), int64_t{1000});
    QCOMPARE(merged.max(), int64_t{2'000'000});
    QCOMPARE(merged.mean(), 1'000'500.0);
    // Within the histogram's resolution (1/2048) of the true median.
    QVERIFY(std::abs(double(merged.valueAtPercentile(50)) - 1e6) <= 1e6 / 2048);
    QCOMPARE(merged.valueAtPercentile(100), int64_t{2'000'000});
    Histogram both = low;
    both.merge(high);
    QVERIFY(merged == both);

    // A damaged blob adds nothing.
    std::string bad = high.serialize();
    bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x10);
    QVERIFY(!merged.mergeSerialized(bad));
    QCOMPARE(merged.count(), uint64_t{2000});
    QVERIFY(merged == both);
}

QTEST_GUILESS_MAIN(TestHistogramSerialization)
#include "tst_histogram_serialization.moc"
