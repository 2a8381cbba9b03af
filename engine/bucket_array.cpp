#include "engine/bucket_array.h"

#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace loadscope::engine::detail {

// Anonymous pages read as zero until written, and only written pages become
// resident (kPagesOnDemand).
BucketArray::BucketArray(size_t count)
    : m_bytes(count * sizeof(uint64_t)) {
#ifdef LOADSCOPE_BUCKETS_FROM_MALLOC
    m_data = static_cast<uint64_t*>(std::calloc(count, sizeof(uint64_t)));
    if (!m_data)
        throw std::bad_alloc();
#else
    void* pages =
        ::mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
        throw std::bad_alloc();
    m_data = static_cast<uint64_t*>(pages);
#endif
}

BucketArray::BucketArray(BucketArray&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0)) {}

BucketArray& BucketArray::operator=(BucketArray&& other) noexcept {
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

BucketArray::~BucketArray() {
    release();
}

void BucketArray::release() noexcept {
    if (!m_data)
        return;
#ifdef LOADSCOPE_BUCKETS_FROM_MALLOC
    std::free(m_data);
#else
    ::munmap(m_data, m_bytes);
#endif
    m_data = nullptr;
    m_bytes = 0;
}

} // namespace loadscope::engine::detail
