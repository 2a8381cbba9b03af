#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace loadscope::engine {

// SplitMix64: turns any 64-bit seed, including 0 and small consecutive ones,
// into well-mixed state for the generator below.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) noexcept
        : m_state(seed) {}
    uint64_t next() noexcept;

private:
    uint64_t m_state;
};

// xoshiro256**: fast, small, statistically strong and fully deterministic
// across platforms, which std::normal_distribution and friends are not.
class Xoshiro256 {
public:
    explicit Xoshiro256(uint64_t seed) noexcept;
    uint64_t next() noexcept;
    // Uniform in [0, bound) without modulo bias; bound 0 means the full 2^64.
    uint64_t below(uint64_t bound) noexcept;
    // Uniform in [0, 1) with 53 random bits.
    double nextDouble() noexcept;

private:
    uint64_t m_s[4];
};

// One 64-bit seed for each independent stream of a run (connection x purpose),
// so that streams do not overlap and each is reproducible on its own.
uint64_t deriveSeed(uint64_t runSeed, uint64_t connectionIndex, uint64_t stream) noexcept;

// memtier_benchmark's --key-pattern letters.
enum class KeyPattern : uint8_t {
    Random,     // R: uniform over the range
    Sequential, // S: minimum, minimum+1, ... wrapping; each connection starts elsewhere
    Gaussian,   // G: normal around the median (default the middle), sd range/6 by default
};

std::optional<KeyPattern> keyPatternFromLetter(char letter) noexcept;
char keyPatternLetter(KeyPattern pattern) noexcept;

struct KeyPatternSpec {
    KeyPattern pattern = KeyPattern::Random;
    uint64_t minimum = 0;
    uint64_t maximum = 10'000'000;
    double stddev = 0;            // Gaussian; <= 0: (maximum - minimum) / 6
    std::optional<double> median; // Gaussian; nullopt: the middle of the range
};

// One line describing what is wrong with `spec`, or nullopt.
std::optional<std::string> validateKeyPatternSpec(const KeyPatternSpec& spec);

// Where connection `connectionIndex` of `connectionCount` starts a sequential
// walk, as an offset from the minimum. Evenly spaced when the count is known
// (> 0); otherwise spread by the golden ratio, which keeps any number of
// connections apart without knowing how many there will be.
uint64_t sequentialStartOffset(uint32_t connectionIndex, uint32_t connectionCount,
                               uint64_t rangeSize) noexcept;

// Key numbers for one connection and one command kind. Cheap to copy.
class KeyGenerator {
public:
    KeyGenerator(const KeyPatternSpec& spec, uint64_t seed, uint64_t sequentialOffset = 0);

    uint64_t next() noexcept;

    uint64_t minimum() const noexcept { return m_minimum; }
    uint64_t maximum() const noexcept { return m_maximum; }

private:
    uint64_t nextGaussian() noexcept;
    double standardNormal() noexcept;

    KeyPattern m_pattern;
    uint64_t m_minimum;
    uint64_t m_maximum;
    uint64_t m_size;     // maximum - minimum + 1; 0 stands for the full 2^64
    uint64_t m_position; // Sequential: offset of the next key from the minimum
    double m_meanOffset; // Gaussian, from the minimum: exact near 2^64 where keys are not
    double m_stddev;
    double m_spareNormal = 0;
    bool m_hasSpare = false;
    Xoshiro256 m_random;
};

// prefix + decimal number, appended straight into the caller's buffer so that
// building a request does not allocate once the buffer has grown.
class KeyFormatter {
public:
    static constexpr size_t kMaxDigits = 20; // 2^64 - 1

    explicit KeyFormatter(std::string prefix)
        : m_prefix(std::move(prefix)) {}

    // `out`: a std::string or a RequestQueue (anything with append(string_view)).
    template <typename Out> void append(Out& out, uint64_t key) const {
        char digits[kMaxDigits];
        const auto end = std::to_chars(digits, digits + kMaxDigits, key).ptr;
        out.append(std::string_view(m_prefix));
        out.append(std::string_view(digits, static_cast<size_t>(end - digits)));
    }
    const std::string& prefix() const noexcept { return m_prefix; }
    size_t maxLength() const noexcept { return m_prefix.size() + kMaxDigits; }

private:
    std::string m_prefix;
};

} // namespace loadscope::engine
