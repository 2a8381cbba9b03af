#pragma once

#include "app/report/error_reply_counting_protocol.h"
#include "app/session/point_result.h"
#include "app/session/target.h"
#include "engine/memcache_protocol.h"
#include "engine/run_result.h"

#include <QJsonObject>
#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace loadscope::app {

// The unmeasured step that set every key of the range once before the run.
struct MemcachePreloadSummary {
    uint64_t keys = 0;
    double seconds = 0;
    uint64_t failed = 0;
    std::string firstError;
};

// What `loadscope-cli memcache` ran, as the report and the JSON describe it.
struct MemcacheRunSetup {
    QString server; // "127.0.0.1:11211"
    // memtier's -P: "memcache_text", or for Redis "redis", "resp2", "resp3".
    QString protocol = QStringLiteral("memcache_text");
    std::vector<RedisCommand> commands; // Redis --command, in order; empty: SET and GET
    uint32_t threads = 1;
    uint32_t clientsPerThread = 1;
    uint32_t pipeline = 1;
    uint64_t requestsPerClient = 0; // 0 for a timed run
    double testTimeSeconds = 0;     // 0 for a counted run
    engine::MemcacheSpec workload;
    std::optional<MemcachePreloadSummary> preload;
};

// A finished run: the engine's result with memcached's error replies folded
// back into the set and get operations (see foldErrorReplies), and their kinds;
// Redis's error replies are in the result's errorReplyCodes.
struct MemcacheRunReport {
    engine::RunResult result;
    ErrorReplyCounts errorReplies;
};

// A description of the run, the "ALL STATS" table of memtier_benchmark's
// report (Sets, Gets and Totals rows, or with Redis's --command a row per
// command name as memtier names it: "Hsets"; ops, hits and misses per second;
// mean, p50, p99 and p99.9 latency in milliseconds; KB/sec), then how many gets
// hit, failures by class with the error replies by kind (memcached's three,
// Redis's by class: "ERR: 3, WRONGTYPE: 2") and the first error, and where the
// load generator's threads ran.
//
// KB/sec counts bytes in both directions (requests and replies), as memtier
// does. The Totals figure is measured; the engine counts bytes per connection,
// not per command, so the command rows share that total in proportion to the
// protocol bytes their commands and replies take (key, flags, value and
// framing lengths in the text protocol or RESP), which is exact when every key
// has the same length; a --command row's share is its commands' bytes, as
// built, and the payload of its replies.
QString formatMemtierReport(const MemcacheRunReport& report, const MemcacheRunSetup& setup);

// The --json object of `loadscope-cli memcache`: cliResultJson() of the run as
// a sweep keeps its point (cli::oneShotResult(): the "cpu" object's noisy and
// noise_reason judged by --noise-threshold), with the error replies by kind,
// and the setup below. Keys: those every command has (complete,
// failed, failed_connect, failed_receive, failed_length, failed_exceptions,
// failed_write, timeouts, bytes_total (received), bytes_body (value bytes
// received), bytes_sent, duration_s, transfer_rate_kib_s, concurrency (all
// connections, clients x threads), threads, thread_cpus, threads_pinned,
// client_cpu_s, client_cpu_load, connections_opened, cancelled, first_error
// when there was one, latency_ms, connect_ms, waiting_ms, processing_ms) plus
// the result's
//   ops_per_second     complete / duration_s
//   sets, gets         replies to each command (error replies included)
//   sets_per_second, gets_per_second
//   hits, misses       gets that returned the value / returned none
//   hits_per_second, misses_per_second
//   hit_ratio          hits / (hits + misses); 0 without gets
//   kb_per_second      KiB/s on the wire, both directions (the Totals row's KB/sec)
//   error_replies      {error, client_error, server_error}: replies of each kind;
//                      their sum is included in failed_exceptions. Redis: an
//                      object of classes, {"ERR": 3, "WRONGTYPE": 2}
//   set_latency_ms, get_latency_ms  per command, the shape of latency_ms
//   operations         Redis only: replies per operation, {"set": n, "get": m} or, with
//                      --command, by command name {"hset": n, "hget": m} (one command
//                      alone: none, its count is complete)
// and the setup's (addMemcacheSetupJson()):
//   server             "HOST:PORT" as given
//   clients_per_thread memtier's -c
//   pipeline           requests outstanding per connection
//   requests_per_client  -n (0 for a timed run); complete = n x clients x threads
//   test_time_s        --test-time (0 for a counted run)
//   ratio              "SETS:GETS"
//   key_pattern        "SET:GET" pattern letters (R, S, G)
//   key_minimum, key_maximum, key_prefix, data_size
//   preload            {keys, seconds, failed}; only with --preload
//   protocol           Redis only: "redis", "resp2" or "resp3" (memtier's -P)
//   commands           Redis only, with --command: [{command, ratio, key_pattern}]
// Latencies are milliseconds; counts cover the measured window only.
QJsonObject memcacheResultJson(PointResult result, const ErrorReplyCounts& errorReplies,
                               const MemcacheRunSetup& setup);

// Whether the run spoke Redis (memtier's -P redis, resp2 or resp3).
bool isRedisRun(const MemcacheRunSetup& setup);

// The run's options as the --json object names them.
void addMemcacheSetupJson(QJsonObject& object, const MemcacheRunSetup& setup);

} // namespace loadscope::app
