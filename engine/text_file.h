#pragma once

#include <optional>
#include <string>

namespace loadscope::engine {

// The whole of a small text file (a /proc or /sys entry, a cgroup counter);
// nullopt when it cannot be opened. Never throws.
std::optional<std::string> readTextFile(const std::string& path);

} // namespace loadscope::engine
