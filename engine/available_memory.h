#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loadscope::engine {

// MemAvailable of /proc/meminfo in bytes: what the kernel estimates can be
// allocated without swapping. nullopt when it cannot be read.
std::optional<uint64_t> availableMemoryBytes();

// A run holds its request once, shared by every connection (RequestQueue), so
// its memory does not grow with the concurrency. One line when `bytes` of
// request data (`what`: "a 100000000-byte body") cannot be held in the memory
// available now, nullopt when they can or when it cannot be told.
std::optional<std::string> requestMemoryProblem(uint64_t bytes, const std::string& what);

} // namespace loadscope::engine
