#include "engine/load_spec.h"

#include "engine/http2_protocol.h"
#include "engine/load_limits.h"
#include "engine/tls_context.h"

#include <chrono>

namespace loadscope::engine {

std::optional<std::string> validateLoadSpec(const LoadSpec& spec) {
    if (!spec.protocol)
        return "no protocol given";
    if (spec.target.length == 0)
        return "no target address given";
    if (spec.concurrency == 0 || spec.concurrency > kMaxConcurrency)
        return "concurrency must be 1 to " + std::to_string(kMaxConcurrency);
    if (spec.threads == 0 || spec.threads > kMaxThreads)
        return "threads must be 1 to " + std::to_string(kMaxThreads);
    if (spec.pipeline == 0)
        return "pipeline depth must be at least 1";
    if (spec.protocol->isStream()) {
        if (spec.duration.count() <= 0)
            return "a stream test needs a duration";
    } else if (spec.requests == 0 && spec.duration.count() <= 0) {
        return "give a request count or a duration";
    }
    if (spec.requests > 0 && spec.requests < spec.concurrency)
        return "cannot send fewer requests (" + std::to_string(spec.requests) +
               ") than the concurrency level (" + std::to_string(spec.concurrency) + ")";
    const std::chrono::duration<double> longest(kMaxSeconds);
    for (const Nanoseconds time : {spec.duration, spec.warmup})
        if (time.count() < 0 || time > longest)
            return "a duration or warm-up must be 0 to " + std::to_string(int64_t(kMaxSeconds)) +
                   " s";
    for (const Nanoseconds timeout : {spec.requestTimeout, spec.connectTimeout})
        if (timeout.count() <= 0 || timeout > longest)
            return "timeouts must be above 0 and at most " + std::to_string(int64_t(kMaxSeconds)) +
                   " s";
    // 0 is the closed loop; a rate below the least would space its requests
    // further apart than a schedule can count.
    if (!(spec.rate == 0 || (spec.rate >= kMinRate && spec.rate <= kMaxRate)))
        return "the rate must be 0 (closed loop) or 0.001 to 100000000 requests/s";
    if (spec.timerSlack.count() < 0 ||
        spec.timerSlack > std::chrono::microseconds(kMaxTimerSlackUs))
        return "the timer slack must be between 0 and 1 ms";
    if (spec.rate > 0 && spec.protocol->isStream())
        return "a stream test has no requests to send at a rate";
    for (int cpu : spec.cpus)
        if (cpu < 0)
            return "CPU numbers cannot be negative";
    if (spec.tls.enabled && spec.protocol->isStream())
        return "TLS is not supported for a stream test";
    if (const auto* h2 = dynamic_cast<const Http2Protocol*>(spec.protocol.get())) {
        if (h2->settings().tls != spec.tls.enabled)
            return "HTTP/2's :scheme and the connection's TLS disagree";
        if (spec.tls.enabled && spec.tls.alpn != kAlpnHttp2)
            return "HTTP/2 over TLS must offer \"h2\" by ALPN";
    }
    return checkTlsSpec(spec.tls);
}

} // namespace loadscope::engine
