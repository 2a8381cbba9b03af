#include "engine/key_pattern.h"

#include <charconv>
#include <cmath>

namespace loadscope::engine {

namespace {

__extension__ typedef unsigned __int128 Uint128;

constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

constexpr uint64_t rotateLeft(uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
}

// A range of 2^64 keys does not fit in uint64_t; it is stored as 0.
Uint128 widenRangeSize(uint64_t rangeSize) noexcept {
    return rangeSize ? Uint128(rangeSize) : Uint128(1) << 64;
}

// Out-of-range draws are redrawn a few times before clamping: clamping at once
// would turn the two ends of the range into the hottest keys of the run.
constexpr int kGaussianRedraws = 16;

} // namespace

uint64_t SplitMix64::next() noexcept {
    uint64_t z = (m_state += kGoldenGamma);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Xoshiro256::Xoshiro256(uint64_t seed) noexcept {
    SplitMix64 mixer(seed);
    for (uint64_t& word : m_s)
        word = mixer.next();
}

uint64_t Xoshiro256::next() noexcept {
    const uint64_t result = rotateLeft(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotateLeft(m_s[3], 45);
    return result;
}

uint64_t Xoshiro256::below(uint64_t bound) noexcept {
    if (bound == 0)
        return next();
    // Multiply-and-take-the-high-word, rejecting the few low words that would
    // make some results more likely than others.
    Uint128 product = Uint128(next()) * bound;
    auto low = static_cast<uint64_t>(product);
    if (low < bound) {
        const uint64_t threshold = (0 - bound) % bound;
        while (low < threshold) {
            product = Uint128(next()) * bound;
            low = static_cast<uint64_t>(product);
        }
    }
    return static_cast<uint64_t>(product >> 64);
}

double Xoshiro256::nextDouble() noexcept {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

uint64_t deriveSeed(uint64_t runSeed, uint64_t connectionIndex, uint64_t stream) noexcept {
    const uint64_t a = SplitMix64(runSeed).next();
    const uint64_t b = SplitMix64(a + connectionIndex).next();
    return SplitMix64(b + stream).next();
}

std::optional<KeyPattern> keyPatternFromLetter(char letter) noexcept {
    switch (letter) {
    case 'R':
        return KeyPattern::Random;
    case 'S':
        return KeyPattern::Sequential;
    case 'G':
        return KeyPattern::Gaussian;
    default:
        return std::nullopt;
    }
}

char keyPatternLetter(KeyPattern pattern) noexcept {
    switch (pattern) {
    case KeyPattern::Random:
        return 'R';
    case KeyPattern::Sequential:
        return 'S';
    case KeyPattern::Gaussian:
        return 'G';
    }
    return '?';
}

std::optional<std::string> validateKeyPatternSpec(const KeyPatternSpec& spec) {
    if (spec.minimum > spec.maximum)
        return "the key minimum is above the key maximum";
    if (!std::isfinite(spec.stddev) || spec.stddev < 0)
        return "the key standard deviation must be a finite number >= 0";
    if (spec.median) {
        const double m = *spec.median;
        if (!std::isfinite(m) || m < static_cast<double>(spec.minimum) ||
            m > static_cast<double>(spec.maximum))
            return "the key median must lie within the key range";
    }
    return std::nullopt;
}

uint64_t sequentialStartOffset(uint32_t connectionIndex, uint32_t connectionCount,
                               uint64_t rangeSize) noexcept {
    const Uint128 size = widenRangeSize(rangeSize);
    if (connectionCount > 0) {
        const uint32_t slot = connectionIndex % connectionCount;
        return static_cast<uint64_t>(Uint128(slot) * size / connectionCount);
    }
    // frac(i * (golden ratio - 1)) scaled to the range.
    const uint64_t fraction = uint64_t(connectionIndex) * kGoldenGamma;
    return static_cast<uint64_t>((Uint128(fraction) * size) >> 64);
}

KeyGenerator::KeyGenerator(const KeyPatternSpec& spec, uint64_t seed, uint64_t sequentialOffset)
    : m_pattern(spec.pattern)
    , m_minimum(spec.minimum)
    , m_maximum(spec.maximum < spec.minimum ? spec.minimum : spec.maximum)
    , m_size(m_maximum - m_minimum + 1)
    , m_position(m_size ? sequentialOffset % m_size : sequentialOffset)
    , m_meanOffset(spec.median ? *spec.median - static_cast<double>(m_minimum)
                               : static_cast<double>(m_maximum - m_minimum) / 2.0)
    , m_stddev(spec.stddev > 0 ? spec.stddev : static_cast<double>(m_maximum - m_minimum) / 6.0)
    , m_random(seed) {}

uint64_t KeyGenerator::next() noexcept {
    switch (m_pattern) {
    case KeyPattern::Random:
        return m_minimum + m_random.below(m_size);
    case KeyPattern::Sequential: {
        const uint64_t key = m_minimum + m_position;
        ++m_position;
        if (m_position == m_size)
            m_position = 0; // a full 2^64 range wraps by itself
        return key;
    }
    case KeyPattern::Gaussian:
        return nextGaussian();
    }
    return m_minimum;
}

double KeyGenerator::standardNormal() noexcept {
    // Marsaglia's polar method yields two independent values per accepted pair.
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spareNormal;
    }
    double u = 0;
    double v = 0;
    double s = 0;
    do {
        u = 2.0 * m_random.nextDouble() - 1.0;
        v = 2.0 * m_random.nextDouble() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    m_spareNormal = v * factor;
    m_hasSpare = true;
    return u * factor;
}

uint64_t KeyGenerator::nextGaussian() noexcept {
    // Worked out as an offset from the minimum, so that a narrow range high up
    // in uint64_t keeps its resolution.
    const double last = static_cast<double>(m_maximum - m_minimum);
    double x = m_meanOffset;
    if (m_stddev > 0) {
        for (int attempt = 0; attempt < kGaussianRedraws; ++attempt) {
            x = m_meanOffset + m_stddev * standardNormal();
            if (x >= -0.5 && x < last + 0.5)
                break;
        }
    }
    const double rounded = std::floor(x + 0.5);
    // Compared as doubles first: converting a double beyond uint64_t is undefined.
    if (!(rounded > 0))
        return m_minimum;
    if (rounded >= last)
        return m_maximum;
    return m_minimum + static_cast<uint64_t>(rounded);
}

} // namespace loadscope::engine
