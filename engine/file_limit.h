#pragma once

#include <cstdint>

namespace loadscope::engine {

// Raises the soft open-file limit towards `wanted` (never above the hard
// limit) and returns the soft limit now in force; UINT64_MAX when unlimited.
// Every connection of a run holds one descriptor, so a run of C connections
// needs a little more than C.
uint64_t raiseOpenFileLimit(uint64_t wanted);

} // namespace loadscope::engine
