#pragma once

#include "engine/cpu_sampler.h"
#include "engine/net_counters.h"
#include "engine/protocol.h"
#include "engine/socket_address.h"
#include "engine/tls_spec.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loadscope::engine {

using Nanoseconds = std::chrono::nanoseconds;

// How the requests of a fixed-rate run are spaced in time.
enum class Arrival {
    Constant, // each connection sends on its own evenly spaced schedule (wrk2)
    Poisson,  // exponentially distributed gaps, the same mean rate
};

// What to run: one protocol against one address with a fixed concurrency.
struct LoadSpec {
    std::shared_ptr<const Protocol> protocol;
    SocketAddress target;

    uint32_t concurrency = 1; // connections in total, spread over the threads
    uint32_t threads = 1;     // worker threads; more than `concurrency` are not started
    uint32_t pipeline = 1;    // requests outstanding per connection

    // Stop after exactly `requests` complete requests, or after `duration` of
    // measured time; at least one must be set, and whichever comes first ends the run.
    uint64_t requests = 0;
    Nanoseconds duration{0};
    Nanoseconds warmup{0}; // run before measuring; its requests are not counted

    Nanoseconds requestTimeout{std::chrono::seconds(30)}; // ab -s
    Nanoseconds connectTimeout{std::chrono::seconds(10)};
    std::vector<int> cpus; // pin worker i to cpus[i % size]; empty: no pinning
    Nanoseconds progressInterval{std::chrono::milliseconds(100)};
    uint64_t seed = 1; // for protocols with random keys

    // Fixed-rate load: requests/s over all connections, each request with an
    // intended start time the engine keeps even when it falls behind; 0: closed
    // loop, each connection sends its next request when the previous answer arrives.
    double rate = 0;
    Arrival arrival = Arrival::Constant;
    // At a fixed rate, a request due within this long of now goes out now,
    // with the one that is due: the requests due close together share one
    // wake-up of the worker, at the first of their times, each at most this
    // early and none late. A request sent early has its latency from its
    // send, so the slack adds nothing to any latency; what it changes is the
    // arrival pattern within it. 0: one wake-up per due time, each request
    // sent at its own time. A wake-up costs more CPU than the request it
    // sends, so a high rate per thread trades this much arrival precision
    // for fewer of them (wrk2's tick: 1 ms).
    Nanoseconds timerSlack{0};
    // In a closed loop on kept-alive connections, pause before waiting while
    // a busy server's responses come often (WakeCoalescer), so that its writes
    // do not each wake the worker at its expense; false: wait at once, as wrk.
    bool wakeCoalescing = true;

    // Whose CPU time is the server's over the measured window (RunResult::cpu);
    // empty: the server's CPU is not measured.
    ServerCpuSource serverCpu;
    bool sampleCpu = true; // read /proc/stat at the measured window's two ends
    // Sample every CPU over the measured window (CpuProfiler): where the CPU
    // went by process role and kernel path (RunResult::profile).
    bool profile = false;
    // With sampleCpu, the network stack's counters are read at the same instants
    // (RunResult::net) in the client's namespace (the starting thread's), the server's
    // (serverCpu.pid's), these (the lab's server host) and the machine's (PID 1's).
    std::vector<NetNamespaceSource> netNamespaces;
    TlsSpec tls; // https: each connection does a TLS handshake before its first request
};

// One line describing what is wrong with `spec`, or nullopt when it can run.
std::optional<std::string> validateLoadSpec(const LoadSpec& spec);

} // namespace loadscope::engine
