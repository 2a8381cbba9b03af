#include "engine/arrival_schedule.h"

#include <cmath>
#include <limits>

namespace loadscope::engine {

namespace {

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// A time `offsetNs` after `firstNs`, or "never" (the largest time) beyond
// what an int64_t of nanoseconds holds: a schedule that far ahead is one the
// run ends before, and a rounding that overflowed would make it due at once,
// again and again.
int64_t timeAfter(int64_t firstNs, double offsetNs) {
    constexpr auto kNever = std::numeric_limits<int64_t>::max();
    const double at = double(firstNs) + offsetNs;
    if (!(at < 9.0e18)) // also NaN
        return kNever;
    return firstNs + int64_t(std::llround(offsetNs));
}

} // namespace

ArrivalSchedule::ArrivalSchedule(Arrival arrival, double ratePerSecond, int64_t firstNs,
                                 uint64_t seed)
    : m_arrival(arrival)
    , m_gapNs(1e9 / ratePerSecond)
    , m_firstNs(firstNs) {
    m_taken.random = seed;
    m_taken.atNs = firstNs;
    if (m_arrival == Arrival::Poisson) {
        // A Poisson stream has no time of its own at its start: the first
        // arrival is one gap after it, as every other.
        --m_taken.index;
        advance(m_taken);
    }
    m_due = m_taken;
}

void ArrivalSchedule::advance(Cursor& cursor) const {
    ++cursor.index;
    if (m_arrival == Arrival::Constant) {
        // From the index, not by adding the rounded gap: 1e9 / 3 ns a
        // thousand times a second would drift a microsecond a second.
        cursor.atNs = timeAfter(m_firstNs, double(cursor.index) * m_gapNs);
        return;
    }
    // Inverse transform of a uniform draw in (0, 1]: never log(0).
    const double u =
        1.0 - double(splitmix64(cursor.random) >> 11) * (1.0 / double(uint64_t(1) << 53));
    cursor.offsetNs += -std::log(u) * m_gapNs;
    cursor.atNs = timeAfter(m_firstNs, cursor.offsetNs);
}

int64_t ArrivalSchedule::take() {
    const int64_t at = m_taken.atNs;
    advance(m_taken);
    if (m_due.index < m_taken.index)
        m_due = m_taken; // the counting cursor never lags the taken one
    return at;
}

uint64_t ArrivalSchedule::backlog(int64_t nowNs) {
    while (m_due.atNs <= nowNs)
        advance(m_due);
    // m_due is the first time after `nowNs`: those before it and not taken are due.
    return m_due.index - m_taken.index;
}

} // namespace loadscope::engine
