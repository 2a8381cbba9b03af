#pragma once

#include "app/common/result.h"
#include "app/session/sweep_plan.h"
#include "app/session/target.h"
#include "app/session/target_rules.h"
#include "engine/load_spec.h"
#include "engine/memcache_protocol.h"
#include "engine/redis_protocol.h"

#include <QCoroTask>
#include <QString>
#include <cstdint>
#include <optional>

// The one builder: Target + concurrency + plan -> engine::LoadSpec, for a
// sweep point, a CLI one-shot (a one-point plan), the probe and the memcached
// preload alike. Split in two so that the part that can take long (a DNS
// lookup) is awaited, never blocking a GUI thread: draftLoadSpec() checks and
// builds everything but the address; resolveEndpoint() turns the host into a
// SocketAddress (numeric hosts at once, names through QHostInfo).
namespace loadscope::app {

struct LoadSpecDraft {
    engine::LoadSpec spec; // complete except spec.target
    // Where the load goes: the target's address when it has one, else the
    // host and port of its URL.
    Endpoint endpoint;
};

// One line on failure, naming what is wrong ("bad URL ...", "https is not
// supported ...", "cannot read body file ..."); the caller prefixes the target.
// A memcache workload is wrapped in ErrorReplyCountingProtocol: a run's
// result goes through foldErrorReplies() before anything reads its operations.
// `rate` > 0: fixed-rate load of that many requests/s over the `concurrency`
// connections, spaced by the plan's arrival model; 0: closed loop.
Result<LoadSpecDraft> draftLoadSpec(const Target& target, int concurrency, const SweepPlan& plan,
                                    double rate = 0);

// The endpoint resolved: "cannot resolve host 'nosuch.example': Host not found"
// (ErrorCode::Unreachable) on failure.
QCoro::Task<Result<engine::SocketAddress>> resolveEndpoint(Endpoint endpoint);

// The memcached workload of `options` for a run of `connections` connections.
Result<engine::MemcacheSpec> memcacheWorkload(const MemcacheOptions& options, int connections);

// The Redis workload of `options` (memtier's -P redis, resp2 or resp3) for a
// run of `connections` connections: the memcache workload's rules but
// memcached's own (Redis keys may be long and hold blanks), the protocol and
// the commands checked by target_rules.h.
Result<engine::RedisSpec> redisWorkload(const RedisOptions& options, int connections);

// The unmeasured preload of a memcache or redis target: every key of its range
// set once, with the measured spec's address, threads, CPUs and timeout.
// Nothing for any other protocol or when the target does not ask for a preload.
Result<std::optional<engine::LoadSpec>> memcachePreloadSpec(const Target& target,
                                                            const engine::LoadSpec& measured);

} // namespace loadscope::app
