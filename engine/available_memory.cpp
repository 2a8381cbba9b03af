#include "engine/available_memory.h"

#include <cstdio>
#include <cstring>

namespace loadscope::engine {

std::optional<uint64_t> availableMemoryBytes() {
    std::FILE* file = std::fopen("/proc/meminfo", "re");
    if (!file)
        return std::nullopt;
    std::optional<uint64_t> bytes;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, file))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            bytes = uint64_t(kib) * 1024;
            break;
        }
    std::fclose(file);
    return bytes;
}

std::optional<std::string> requestMemoryProblem(uint64_t bytes, const std::string& what) {
    const auto available = availableMemoryBytes();
    if (!available || bytes <= *available)
        return std::nullopt;
    return what + " needs " + std::to_string(bytes >> 20) + " MiB of memory, and " +
           std::to_string(*available >> 20) + " MiB are available";
}

} // namespace loadscope::engine
