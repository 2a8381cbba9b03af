// The histograms' counter storage: zero everywhere, and resident only where
// written, so a histogram costs the pages its values fall in.
#include "engine/bucket_array.h"

#include <QTest>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

using loadscope::engine::detail::BucketArray;

namespace {

constexpr size_t kCount = 64793; // as many as a histogram has

// Pages of the array that are backed by memory now (mincore).
size_t residentPages(const BucketArray& array) {
    const auto page = size_t(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(array.data());
    const uintptr_t first = begin / page * page;
    const uintptr_t end = begin + kCount * sizeof(uint64_t);
    std::vector<unsigned char> flags((end - first + page - 1) / page);
    if (mincore(reinterpret_cast<void*>(first), end - first, flags.data()) != 0)
        return size_t(-1);
    size_t resident = 0;
    for (unsigned char f : flags)
        resident += f & 1;
    return resident;
}

} // namespace

class TestBucketArray : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void startsEmpty() {
        BucketArray none;
        QVERIFY(none.empty());
        QCOMPARE(none.data(), nullptr);
    }

    void everyCounterReadsZero() {
        BucketArray array(kCount);
        QVERIFY(!array.empty());
        uint64_t sum = 0;
        for (size_t i = 0; i < kCount; ++i)
            sum |= std::as_const(array)[i];
        QCOMPARE(sum, uint64_t(0));
    }

    void onlyWrittenPagesBecomeResident() {
        if (!BucketArray::kPagesOnDemand)
            QSKIP("under AddressSanitizer the counters come from calloc");
        BucketArray array(kCount);
        QCOMPARE(residentPages(array), size_t(0));
        array[1000] += 1;
        array[1001] += 1;
        QCOMPARE(residentPages(array), size_t(1));
        array[kCount - 1] = 7;
        QCOMPARE(residentPages(array), size_t(2));
        QCOMPARE(std::as_const(array)[1000], uint64_t(1));
        QCOMPARE(std::as_const(array)[kCount - 1], uint64_t(7));
    }

    void moveHandsOverTheCounters() {
        BucketArray a(kCount);
        a[5] = 42;
        const uint64_t* storage = a.data();
        BucketArray b(std::move(a));
        QVERIFY(a.empty());
        QCOMPARE(b.data(), storage);
        QCOMPARE(b[5], uint64_t(42));
        BucketArray c(kCount);
        c = std::move(b);
        QVERIFY(b.empty());
        QCOMPARE(c[5], uint64_t(42));
    }
};

QTEST_GUILESS_MAIN(TestBucketArray)
#include "tst_bucket_array.moc"
