#pragma once

// The character rules of HTTP/1.x field lines that both stages of the
// response parser need: the head (http_response_head.cpp) and the chunked
// body's trailers (http_response_parser.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loadscope::engine::detail {

constexpr bool isOws(char c) {
    return c == ' ' || c == '\t';
}

// 1 for a token character: bytes, not bools, so that four can be and-ed.
constexpr std::array<uint8_t, 256> makeTokenTable() {
    std::array<uint8_t, 256> table{};
    for (int c = '0'; c <= '9'; ++c)
        table[static_cast<size_t>(c)] = 1;
    for (int c = 'a'; c <= 'z'; ++c)
        table[static_cast<size_t>(c)] = 1;
    for (int c = 'A'; c <= 'Z'; ++c)
        table[static_cast<size_t>(c)] = 1;
    for (char c : std::string_view("!#$%&'*+-.^_`|~"))
        table[static_cast<unsigned char>(c)] = 1;
    return table;
}
constexpr std::array<uint8_t, 256> kTokenChars = makeTokenTable();

// Where the field name of a header or trailer line ends: at its colon, or
// npos when the line does not start with a token and a colon. One pass finds
// the colon and checks the name, as every line of every response needs both.
inline size_t fieldNameEnd(std::string_view line) {
    const auto* const p = reinterpret_cast<const unsigned char*>(line.data());
    const size_t n = line.size();
    size_t i = 0;
    // Four characters a step while all are token characters: one branch per
    // four instead of one per character, for the name of every line.
    while (i + 4 <= n && (kTokenChars[p[i]] & kTokenChars[p[i + 1]] & kTokenChars[p[i + 2]] &
                          kTokenChars[p[i + 3]]))
        i += 4;
    while (i < n && kTokenChars[p[i]])
        ++i;
    return i > 0 && i < n && p[i] == ':' ? i : std::string_view::npos;
}

} // namespace loadscope::engine::detail
