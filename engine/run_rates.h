#pragma once

#include <cstdint>

// The rate formulas of DESIGN.md "Metrics", once. RunResult (the engine's
// result) and app::PointResult (a stored one) both derive their rates here,
// so a figure printed by the CLI, saved in a session and written to a CSV is
// computed the same way. Every rate is 0 without a measured time.
namespace loadscope::engine::rates {

inline constexpr double kBytesPerKiB = 1024.0;
inline constexpr double kBitsPerMbit = 1e6;

// `count` events per second of measured time.
constexpr double perSecond(double count, double seconds) {
    return seconds > 0 ? count / seconds : 0;
}

// The requests that ended with a response counted as a success: `complete`
// holds every request that ended, `failed` the part of it that failed. A
// non-2xx response is a success here (counted apart, as ab does).
constexpr uint64_t successful(uint64_t complete, uint64_t failed) {
    return complete > failed ? complete - failed : 0;
}

// Successful responses (operations, transactions) per second, as ab's
// "Requests per second" but without failures: a target that fails fast must
// not look fast.
constexpr double requestsPerSecond(uint64_t complete, uint64_t failed, double seconds) {
    return perSecond(double(successful(complete, failed)), seconds);
}

// Failed requests as a share of the requests that ended, in percent: the
// comparison's rate of failures (0 without requests).
constexpr double failedPercent(uint64_t complete, uint64_t failed) {
    return complete > 0 ? 100.0 * double(failed) / double(complete) : 0;
}

// Bytes received (headers and bodies) in KiB/s, as ab's "Transfer rate";
// the engine counts the bytes of successful responses only (RunResult::bytesTotal).
constexpr double transferRateKiBps(uint64_t bytesReceived, double seconds) {
    return perSecond(double(bytesReceived) / kBytesPerKiB, seconds);
}

// Bytes on the wire in both directions in KiB/s, as memtier's KB/sec.
constexpr double wireKiBps(uint64_t bytesSent, uint64_t bytesReceived, double seconds) {
    return perSecond((double(bytesSent) + double(bytesReceived)) / kBytesPerKiB, seconds);
}

// Bytes sent plus received in 10^6 bit/s. For tcp-stream nothing comes back,
// so this is netperf TCP_STREAM's send throughput.
constexpr double throughputMbitps(uint64_t bytesSent, uint64_t bytesReceived, double seconds) {
    return perSecond(double(bytesSent + bytesReceived) * 8.0 / kBitsPerMbit, seconds);
}

// ab's first "Time per request" in ms: concurrency x measured time /
// successful responses, the mean time one client waits per successful request.
constexpr double timePerRequestMs(double concurrency, double seconds, double successful) {
    return successful > 0 ? concurrency * seconds * 1000.0 / successful : 0;
}

// ab's second line: measured time / successful, across all concurrent requests.
constexpr double timePerRequestAcrossMs(double seconds, double successful) {
    return timePerRequestMs(1, seconds, successful);
}

// Share of the worker threads' wall time spent on CPU (1.0 = saturated).
constexpr double clientCpuLoad(double cpuSeconds, double seconds, double threads) {
    return seconds > 0 && threads > 0 ? cpuSeconds / (seconds * threads) : 0;
}

// hits / (hits + misses); 0 without lookups.
constexpr double hitRatio(uint64_t hits, uint64_t misses) {
    return hits + misses ? double(hits) / double(hits + misses) : 0;
}

} // namespace loadscope::engine::rates
