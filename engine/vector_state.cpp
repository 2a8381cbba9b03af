#include "engine/vector_state.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <cstdint>
#include <immintrin.h>
#endif

namespace loadscope::engine {

#if defined(__x86_64__)

namespace {

constexpr uint64_t kAvxComponent = 1u << 2;      // upper halves of YMM0-15
constexpr uint64_t kZmmHi256Component = 1u << 6; // upper halves of ZMM0-15

bool osSupportsAvx() {
    // __builtin_cpu_supports checks both the CPUID bit and that the kernel
    // saves the YMM state (XCR0), as VZEROUPPER needs.
    static const bool supported = __builtin_cpu_supports("avx");
    return supported;
}

bool canReadStateInUse() {
    // CPUID.(EAX=0DH,ECX=1):EAX bit 2: XGETBV with ECX = 1 returns XINUSE.
    static const bool supported = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return osSupportsAvx() && __get_cpuid_count(0x0d, 1, &eax, &ebx, &ecx, &edx) &&
               (eax & (1u << 2)) != 0;
    }();
    return supported;
}

__attribute__((target("avx"))) void zeroUpper() noexcept {
    _mm256_zeroupper();
}

} // namespace

void clearUpperVectorState() noexcept {
    if (osSupportsAvx())
        zeroUpper();
}

std::optional<bool> upperVectorStateInUse() noexcept {
    if (!canReadStateInUse())
        return std::nullopt;
    uint32_t low = 0, high = 0;
    asm volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(1));
    const uint64_t inUse = (uint64_t(high) << 32) | low;
    return (inUse & (kAvxComponent | kZmmHi256Component)) != 0;
}

#else

void clearUpperVectorState() noexcept {}

std::optional<bool> upperVectorStateInUse() noexcept {
    return std::nullopt;
}

#endif

} // namespace loadscope::engine
