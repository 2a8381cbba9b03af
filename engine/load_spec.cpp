#include "engine/load_spec.h"

#include "engine/http2_protocol.h"
#include "engine/tls_context.h"

namespace loadscope::engine {

std::optional<std::string> validateLoadSpec(const LoadSpec& spec) {
    if (!spec.protocol)
        return "no protocol given";
    if (spec.target.length == 0)
        return "no target address given";
    if (spec.concurrency == 0)
        return "concurrency must be at least 1";
    if (spec.threads == 0)
        return "at least one thread is needed";
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
    if (spec.requestTimeout.count() <= 0 || spec.connectTimeout.count() <= 0)
        return "timeouts must be positive";
    if (spec.warmup.count() < 0)
        return "warm-up cannot be negative";
    if (!(spec.rate >= 0) || spec.rate > 1e9)
        return "the rate must be between 0 and 1e9 requests/s";
    if (spec.timerSlack.count() < 0 || spec.timerSlack > std::chrono::milliseconds(1))
        return "the timer slack must be between 0 and 1 ms";
    if (spec.rate > 0 && spec.protocol->isStream())
        return "a stream test has no requests to send at a rate";
    for (int cpu : spec.cpus)
        if (cpu < 0)
            return "CPU numbers cannot be negative";
    if (spec.tls.enabled && spec.protocol->isStream())
        return "TLS is not supported for a stream test";
    if (spec.tls.enabled && spec.protocol->datagrams())
        return "TLS is not supported over UDP";
    if (const auto* h2 = dynamic_cast<const Http2Protocol*>(spec.protocol.get())) {
        if (h2->settings().tls != spec.tls.enabled)
            return "HTTP/2's :scheme and the connection's TLS disagree";
        if (spec.tls.enabled && spec.tls.alpn != kAlpnHttp2)
            return "HTTP/2 over TLS must offer \"h2\" by ALPN";
    }
    return checkTlsSpec(spec.tls);
}

} // namespace loadscope::engine
