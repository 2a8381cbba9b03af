// The allocator nghttp2 is given per session (engine/http2_memory_pool.h):
// every block holds what was asked of it without touching another (each is
// filled with its own pattern and all are checked after), resize keeps the
// bytes a block had, calloc's blocks are zero even when reused, and a freed
// block serves the next request of its size without a call into malloc.
#include "engine/http2_memory_pool.h"

#include <QTest>
#include <cstring>
#include <random>
#include <vector>

using loadscope::engine::Http2MemoryPool;

namespace {

struct Block {
    unsigned char* bytes = nullptr;
    size_t size = 0;
    unsigned char mark = 0;
};

void fill(Block& b) {
    std::memset(b.bytes, b.mark, b.size);
}

bool intact(const Block& b) {
    for (size_t i = 0; i < b.size; ++i)
        if (b.bytes[i] != b.mark)
            return false;
    return true;
}

} // namespace

class TestHttp2MemoryPool : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void blocksHoldTheirBytesApart() {
        Http2MemoryPool pool;
        nghttp2_mem* mem = pool.mem();
        std::mt19937 random(7);
        std::vector<Block> live;
        for (int round = 0; round < 5000; ++round) {
            const bool take = live.empty() || random() % 3 != 0;
            if (take) {
                Block b;
                b.size = random() % 9000; // across every class and beyond
                b.mark = static_cast<unsigned char>(round % 255 + 1);
                b.bytes = static_cast<unsigned char*>(mem->malloc(b.size, mem->mem_user_data));
                QVERIFY(b.bytes);
                QCOMPARE(reinterpret_cast<uintptr_t>(b.bytes) % 16, uintptr_t(0));
                fill(b);
                live.push_back(b);
            } else {
                const size_t i = random() % live.size();
                QVERIFY(intact(live[i]));
                if (random() % 2 == 0) {
                    mem->free(live[i].bytes, mem->mem_user_data);
                    live[i] = live.back();
                    live.pop_back();
                } else {
                    // realloc keeps the bytes both sizes hold
                    Block& b = live[i];
                    const size_t kept = std::min<size_t>(b.size, random() % 9000);
                    b.size = kept + random() % 2;
                    b.bytes = static_cast<unsigned char*>(
                        mem->realloc(b.bytes, b.size, mem->mem_user_data));
                    QVERIFY(b.bytes);
                    const Block keptPart{b.bytes, kept, b.mark};
                    QVERIFY(intact(keptPart));
                    fill(b);
                }
            }
        }
        for (const Block& b : live) {
            QVERIFY(intact(b));
            mem->free(b.bytes, mem->mem_user_data);
        }
    }

    void callocIsZeroWhenReused() {
        Http2MemoryPool pool;
        nghttp2_mem* mem = pool.mem();
        void* first = mem->malloc(100, mem->mem_user_data);
        std::memset(first, 0xab, 100);
        mem->free(first, mem->mem_user_data);
        auto* zeroed = static_cast<unsigned char*>(mem->calloc(10, 10, mem->mem_user_data));
        QVERIFY(zeroed);
        for (int i = 0; i < 100; ++i)
            QCOMPARE(int(zeroed[i]), 0);
        mem->free(zeroed, mem->mem_user_data);
        QVERIFY(!mem->calloc(SIZE_MAX / 2, 4, mem->mem_user_data)); // overflow
    }

    void freedBlocksServeTheNextRequests() {
        Http2MemoryPool pool;
        nghttp2_mem* mem = pool.mem();
        // One "request": blocks of a stream's sizes, all freed when it ends.
        const size_t sizes[] = {24, 200, 352, 600, 1500, 4096};
        for (int request = 0; request < 1000; ++request) {
            std::vector<void*> blocks;
            for (size_t size : sizes)
                blocks.push_back(mem->malloc(size, mem->mem_user_data));
            for (void* b : blocks)
                mem->free(b, mem->mem_user_data);
        }
        QCOMPARE(pool.systemAllocations(), uint64_t(std::size(sizes)));
        // Above the largest class each block is malloc's own.
        for (int i = 0; i < 3; ++i)
            mem->free(mem->malloc(5000, mem->mem_user_data), mem->mem_user_data);
        QCOMPARE(pool.systemAllocations(), uint64_t(std::size(sizes)) + 3);
    }
};

QTEST_GUILESS_MAIN(TestHttp2MemoryPool)
#include "tst_http2_memory_pool.moc"
