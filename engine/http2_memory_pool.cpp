#include "engine/http2_memory_pool.h"

#include <cstdlib>
#include <cstring>

namespace loadscope::engine {

namespace {

constexpr size_t kSmallestBytes = 32;
constexpr uint32_t kLarge = ~uint32_t(0);

// Before each block, keeping the payload as aligned as malloc's.
struct alignas(16) BlockHeader {
    uint32_t sizeClass; // kLarge: from malloc, back to free
    uint32_t unused;
    uint64_t bytes; // what the block can hold
};
static_assert(sizeof(BlockHeader) == 16);

BlockHeader* headerOf(void* block) {
    return static_cast<BlockHeader*>(block) - 1;
}

void* mallocCallback(size_t size, void* pool) {
    return static_cast<Http2MemoryPool*>(pool)->allocate(size);
}

void freeCallback(void* block, void* pool) {
    static_cast<Http2MemoryPool*>(pool)->release(block);
}

void* callocCallback(size_t count, size_t size, void* pool) {
    if (size != 0 && count > SIZE_MAX / size)
        return nullptr;
    void* block = static_cast<Http2MemoryPool*>(pool)->allocate(count * size);
    if (block)
        std::memset(block, 0, count * size);
    return block;
}

void* reallocCallback(void* block, size_t size, void* pool) {
    return static_cast<Http2MemoryPool*>(pool)->resize(block, size);
}

} // namespace

Http2MemoryPool::Http2MemoryPool()
    : m_mem{this, &mallocCallback, &freeCallback, &callocCallback, &reallocCallback} {}

Http2MemoryPool::~Http2MemoryPool() {
    for (FreeBlock* list : m_free) {
        while (list) {
            FreeBlock* next = list->next;
            std::free(headerOf(list));
            list = next;
        }
    }
}

void* Http2MemoryPool::allocate(size_t size) {
    uint32_t sizeClass = 0;
    size_t bytes = kSmallestBytes;
    while (bytes < size && sizeClass < kClasses) {
        bytes *= 2;
        ++sizeClass;
    }
    if (sizeClass < kClasses) {
        if (FreeBlock* block = m_free[sizeClass]) {
            m_free[sizeClass] = block->next;
            return block;
        }
    } else {
        sizeClass = kLarge;
        bytes = size;
        if (bytes > SIZE_MAX - sizeof(BlockHeader))
            return nullptr;
    }
    auto* header = static_cast<BlockHeader*>(std::malloc(sizeof(BlockHeader) + bytes));
    if (!header)
        return nullptr;
    ++m_systemAllocations;
    header->sizeClass = sizeClass;
    header->unused = 0;
    header->bytes = bytes;
    return header + 1;
}

void Http2MemoryPool::release(void* block) {
    if (!block)
        return;
    BlockHeader* header = headerOf(block);
    if (header->sizeClass == kLarge) {
        std::free(header);
        return;
    }
    auto* freed = static_cast<FreeBlock*>(block);
    freed->next = m_free[header->sizeClass];
    m_free[header->sizeClass] = freed;
}

void* Http2MemoryPool::resize(void* block, size_t size) {
    if (!block)
        return allocate(size);
    BlockHeader* header = headerOf(block);
    const size_t held = header->bytes;
    if (header->sizeClass != kLarge && size <= held)
        return block; // it fits where it is
    if (header->sizeClass == kLarge && size > (kSmallestBytes << (kClasses - 1))) {
        if (size > SIZE_MAX - sizeof(BlockHeader))
            return nullptr;
        auto* grown = static_cast<BlockHeader*>(std::realloc(header, sizeof(BlockHeader) + size));
        if (!grown)
            return nullptr;
        grown->bytes = size;
        return grown + 1;
    }
    void* moved = allocate(size);
    if (!moved)
        return nullptr; // as realloc: the old block is still the caller's
    std::memcpy(moved, block, size < held ? size : held);
    release(block);
    return moved;
}

} // namespace loadscope::engine
