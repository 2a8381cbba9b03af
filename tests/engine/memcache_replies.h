#pragma once

// Reply bytes shared by the memcached parser and protocol suites.

#include <string>
#include <string_view>

namespace loadscope::engine::testing {

inline std::string valueBlock(std::string_view key, std::string_view data,
                              std::string_view extra = {}) {
    std::string s = "VALUE " + std::string(key) + " 0 " + std::to_string(data.size());
    if (!extra.empty())
        s += " " + std::string(extra);
    s += "\r\n";
    s += data;
    s += "\r\n";
    return s;
}

// Bytes that look like protocol lines, to catch a parser that scans the data.
inline std::string trickyData(size_t size) {
    static constexpr char kPieces[] = "END\r\nSTORED\r\n\0\xff VALUE x 0 1\r\n\n\r";
    static const std::string pieces(kPieces, sizeof kPieces - 1);
    std::string data;
    data.reserve(size);
    for (size_t i = 0; data.size() < size; ++i)
        data.push_back(pieces[i % pieces.size()]);
    return data;
}

} // namespace loadscope::engine::testing
