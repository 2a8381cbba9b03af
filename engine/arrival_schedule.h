#pragma once

#include "engine/load_spec.h"

#include <cstdint>

namespace loadscope::engine {

// The intended start times of a fixed-rate run's requests on one worker,
// oldest first. Constant arrival spaces them evenly (1 / rate apart): the
// same times as wrk2's per-connection schedules when each connection's
// evenly spaced schedule is offset by its share of the gap, interleaved into
// one. Poisson arrival draws exponential gaps of the same mean, whose
// superposition over the workers is again Poisson at the total rate.
//
// The schedule never skips a time: take() hands out the next one however
// late it is, so a run that falls behind keeps every request and its
// intended start (coordinated-omission correction). backlog() counts the
// times that are due and not yet taken, with a second cursor over the same
// sequence, so nothing is stored however far behind the run falls.
class ArrivalSchedule {
public:
    // `ratePerSecond` > 0; the first time is `firstNs` for constant arrival,
    // one random gap after it for Poisson. A time beyond what int64_t
    // nanoseconds hold is never due (INT64_MAX), never a wrapped-round one.
    // validateLoadSpec keeps every rate where that cannot come before a
    // run's end (kMinRate).
    ArrivalSchedule(Arrival arrival, double ratePerSecond, int64_t firstNs, uint64_t seed);

    // The intended start of the next request not yet taken.
    int64_t nextNs() const { return m_taken.atNs; }
    bool due(int64_t nowNs) const { return m_taken.atNs <= nowNs; }
    // Takes the next time (the request goes out now); returns it.
    int64_t take();
    // Times at or before `nowNs` not yet taken.
    uint64_t backlog(int64_t nowNs);
    uint64_t taken() const { return m_taken.index; }

private:
    struct Cursor {
        int64_t atNs = 0;
        uint64_t index = 0;  // of the time at atNs, from 0
        double offsetNs = 0; // from the first time, unrounded (no drift over long runs)
        uint64_t random = 0; // splitmix64 state: small, so a cursor copies cheaply
    };
    void advance(Cursor& cursor) const;

    Arrival m_arrival;
    double m_gapNs;
    int64_t m_firstNs;
    Cursor m_taken;
    Cursor m_due; // runs ahead over the same sequence, to count the backlog
};

} // namespace loadscope::engine
