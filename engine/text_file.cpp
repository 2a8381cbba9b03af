#include "engine/text_file.h"

#include <fstream>
#include <sstream>

namespace loadscope::engine {

std::optional<std::string> readTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace loadscope::engine
