#include "app/common/base64.h"

#include <array>
#include <cstdint>

namespace loadscope::app {

namespace {

constexpr uint32_t kInvalid = 0x100; // above any 6-bit value: OR-ed together, it marks a bad quad

constexpr std::array<uint32_t, 256> makeValues() {
    std::array<uint32_t, 256> values{};
    values.fill(kInvalid);
    for (uint32_t i = 0; i < 26; ++i) {
        values['A' + i] = i;
        values['a' + i] = 26 + i;
    }
    for (uint32_t i = 0; i < 10; ++i)
        values['0' + i] = 52 + i;
    values['+'] = 62;
    values['/'] = 63;
    return values;
}

constexpr std::array<uint32_t, 256> kValues = makeValues();

// The 6-bit value of a character; kInvalid for any outside the alphabet.
uint32_t valueOf(char16_t c) {
    return c < 256 ? kValues[c] : kInvalid;
}
uint32_t valueOf(unsigned char c) {
    return kValues[c];
}

// The values shifted to their place in a quad's 24 bits, kShiftedInvalid
// (above them) for any character outside the alphabet: a quad is four
// lookups OR-ed, a third faster than shifting each value.
constexpr uint32_t kShiftedInvalid = 1u << 24;

template <int Shift> constexpr std::array<uint32_t, 256> makeShifted() {
    std::array<uint32_t, 256> shifted{};
    for (size_t i = 0; i < 256; ++i)
        shifted[i] = kValues[i] == kInvalid ? kShiftedInvalid : kValues[i] << Shift;
    return shifted;
}

constexpr std::array<std::array<uint32_t, 256>, 4> kShifted = {makeShifted<18>(), makeShifted<12>(),
                                                               makeShifted<6>(), makeShifted<0>()};

template <int Place> uint32_t shiftedValueOf(char16_t c) {
    return c < 256 ? kShifted[Place][c] : kShiftedInvalid;
}
template <int Place> uint32_t shiftedValueOf(unsigned char c) {
    return kShifted[Place][c];
}

// One pass for UTF-16 text (a QString from Qt's JSON) and for Latin-1 bytes
// (a histogram's text cut from a session file before the JSON is parsed).
template <typename Char> std::optional<QByteArray> decodeCanonical(const Char* in, qsizetype size) {
    if (size == 0 || size % 4 != 0)
        return std::nullopt;
    const int padding = in[size - 1] != '=' ? 0 : in[size - 2] != '=' ? 1 : 2;
    const qsizetype whole = padding == 0 ? size : size - 4; // quads without padding
    QByteArray out(size / 4 * 3 - padding, Qt::Uninitialized);
    auto* o = reinterpret_cast<unsigned char*>(out.data());
    uint32_t seen = 0; // every quad OR-ed, checked once at the end: no branch on the data
    for (qsizetype i = 0; i < whole; i += 4, o += 3) {
        const uint32_t bits = shiftedValueOf<0>(in[i]) | shiftedValueOf<1>(in[i + 1]) |
                              shiftedValueOf<2>(in[i + 2]) | shiftedValueOf<3>(in[i + 3]);
        seen |= bits;
        o[0] = static_cast<unsigned char>(bits >> 16);
        o[1] = static_cast<unsigned char>(bits >> 8);
        o[2] = static_cast<unsigned char>(bits);
    }
    uint32_t stray = 0;
    uint32_t paddedQuad = 0; // its values OR-ed: kInvalid marks a bad one
    if (padding > 0) {
        const uint32_t a = valueOf(in[size - 4]);
        const uint32_t b = valueOf(in[size - 3]);
        const uint32_t c = padding == 1 ? valueOf(in[size - 2]) : 0;
        paddedQuad = a | b | c;
        // Bits past the last byte must be zero: other spellings are Qt's to judge.
        stray = padding == 1 ? (c & 0x3) : (b & 0xF);
        const uint32_t bits = (a << 18) | (b << 12) | (c << 6);
        o[0] = static_cast<unsigned char>(bits >> 16);
        if (padding == 1)
            o[1] = static_cast<unsigned char>(bits >> 8);
    }
    if ((seen & kShiftedInvalid) != 0 || (paddedQuad & kInvalid) != 0 || stray != 0)
        return std::nullopt;
    return out;
}

} // namespace

std::optional<QByteArray> decodeCanonicalBase64(QStringView text) {
    return decodeCanonical(text.utf16(), text.size());
}

std::optional<QByteArray> decodeCanonicalBase64(QByteArrayView text) {
    return decodeCanonical(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

std::optional<QByteArray> decodeBase64(QStringView text) {
    if (std::optional<QByteArray> canonical = decodeCanonicalBase64(text))
        return canonical;
    auto decoded =
        QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return std::move(decoded.decoded);
}

} // namespace loadscope::app
