#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define LOADSCOPE_BUCKETS_FROM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOADSCOPE_BUCKETS_FROM_MALLOC 1
#endif
#endif

namespace loadscope::engine::detail {

// A fixed number of 64-bit counters, all zero at first, whose memory the
// kernel supplies page by page as counters are first written. A histogram's
// 64 793 buckets (506 KiB) then occupy only the pages its values fall in; a
// vector would write every byte at allocation and keep all of it resident.
// That matters beyond memory: on a virtual machine measured here, every
// resident megabyte of the client cost TCP_RR rate on a CPU shared with the
// server (tests/bench/README.md).
class BucketArray {
public:
#ifdef LOADSCOPE_BUCKETS_FROM_MALLOC
    // Under AddressSanitizer the counters come from calloc instead, so that
    // every access is checked against the array's bounds.
    static constexpr bool kPagesOnDemand = false;
#else
    static constexpr bool kPagesOnDemand = true;
#endif

    BucketArray() = default;
    explicit BucketArray(size_t count); // throws std::bad_alloc
    BucketArray(BucketArray&& other) noexcept;
    BucketArray& operator=(BucketArray&& other) noexcept;
    BucketArray(const BucketArray&) = delete;
    BucketArray& operator=(const BucketArray&) = delete;
    ~BucketArray();

    bool empty() const noexcept {
        return m_data == nullptr;
    }
    uint64_t* data() noexcept {
        return m_data;
    }
    const uint64_t* data() const noexcept {
        return m_data;
    }
    uint64_t& operator[](size_t i) noexcept {
        return m_data[i];
    }
    uint64_t operator[](size_t i) const noexcept {
        return m_data[i];
    }

private:
    void release() noexcept;

    uint64_t* m_data = nullptr;
    size_t m_bytes = 0;
};

} // namespace loadscope::engine::detail
