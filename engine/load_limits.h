#pragma once

#include <cstdint>

// The range of each quantity a load run takes, written once. The engine
// refuses a LoadSpec outside them (validateLoadSpec); app's rules for the
// command line's flags, the window's fields, session files and the load
// agent (app/session/sweep_plan.h, target_rules.h) are these constants, so
// that what one of them accepts none of the others refuses, and no
// arithmetic (a schedule's gaps, seconds turned into nanoseconds) ever sees a
// value beyond them.
namespace loadscope::engine {

// A fixed rate, requests/s over all connections: one request in 1000 s to
// 10^8 a second. The slowest share of one worker (kMinRate over
// kMaxConcurrency connections, one of them its own) is a gap of 10^18 ns,
// which an int64_t of nanoseconds still holds.
inline constexpr double kMinRate = 0.001;
inline constexpr double kMaxRate = 100'000'000;
inline constexpr uint32_t kMaxConcurrency = 1'000'000;
inline constexpr uint32_t kMaxThreads = 4096;
inline constexpr int64_t kMaxTimerSlackUs = 1000;
// Durations, timeouts, warm-ups and pauses, in seconds: at most 10^7 (about
// four months; anything longer is a typo), and where one must be above 0, at
// least a millisecond.
inline constexpr double kMinSeconds = 0.001;
inline constexpr double kMaxSeconds = 10'000'000;

} // namespace loadscope::engine
