#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <nghttp2/nghttp2.h>

namespace loadscope::engine {

// The allocator nghttp2 is given for one session (nghttp2_session_client_new3):
// blocks of up to 4 KiB come from free lists of eight size classes, so that a
// request's stream, its frames and its header buffers, freed when the stream
// closes, serve the next request without a call into malloc (about twenty a
// request otherwise). A freed block stays in its list until the pool goes;
// the lists hold at most what the busiest moment of the session needed.
// Larger blocks (the session's frame buffers, a large header table) go to
// malloc and back. Owned by one thread; it must outlive every session made
// with mem() (nghttp2_session_del returns all their blocks).
class Http2MemoryPool {
public:
    Http2MemoryPool();
    ~Http2MemoryPool();
    Http2MemoryPool(const Http2MemoryPool&) = delete;
    Http2MemoryPool& operator=(const Http2MemoryPool&) = delete;

    nghttp2_mem* mem() { return &m_mem; }

    // As malloc, free and realloc (16-byte aligned; nullptr when out of memory).
    void* allocate(size_t size);
    void release(void* block);
    void* resize(void* block, size_t size);

    // Blocks taken from malloc so far (pooled and large): a test's window on reuse.
    uint64_t systemAllocations() const { return m_systemAllocations; }

private:
    static constexpr size_t kClasses = 8; // 32, 64, ... 4096 bytes
    struct FreeBlock {
        FreeBlock* next;
    };

    nghttp2_mem m_mem;
    std::array<FreeBlock*, kClasses> m_free{};
    uint64_t m_systemAllocations = 0;
};

} // namespace loadscope::engine
