#pragma once

#include <optional>

// The upper halves of the x86 YMM/ZMM registers. A thread starts with a copy
// of its creator's registers, so a worker created by a thread that ran AVX
// code without VZEROUPPER afterwards (Qt 6.4's QHash string hashing does)
// carries that "in use" state for its whole life: every context switch saves
// and restores it. On a CPU shared with the server of a one-connection
// request/response test, that cost 4-5 % of the transaction rate (see
// tests/bench/README.md). Threads that run a hot loop clear it once at start.
namespace loadscope::engine {

// Sets the calling thread's upper YMM/ZMM halves to their initial state; a
// no-op on processors without AVX and off x86. Cheap enough to call anywhere.
void clearUpperVectorState() noexcept;

// Whether the calling thread's upper YMM/ZMM halves are in use (XGETBV 1:
// XINUSE of the AVX or ZMM_Hi256 component), or nullopt where the processor
// cannot tell. For tests and diagnostics.
std::optional<bool> upperVectorStateInUse() noexcept;

} // namespace loadscope::engine
