#pragma once

#include "app/session/comparison.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

// CSV exports of a session, RFC 4180: comma separated, fields quoted when
// they hold a comma, a quote, CR or LF (quotes doubled), CRLF line ends,
// UTF-8 without a byte-order mark, one header line. Numbers are written in
// the shortest form that reads back to the same double, with a dot, never in
// the locale's format; an absent figure is an empty field.
//
// Column names are stable: new columns may be added at the end, existing ones
// never renamed or reordered.
namespace loadscope::app {

// Quotes `field` when RFC 4180 requires it.
QString csvField(const QString& field);
// Fields joined by commas, quoted as needed, with CRLF.
QByteArray csvRecord(const QStringList& fields);
// Shortest round-trip decimal, no exponent ("1234.5", "0.000125").
QString csvNumber(double value);

// Results CSV: one row per result (target x concurrency x repetition),
// targets in session order, then concurrency and repetition ascending.
// Columns: target, target_id, mode, protocol, endpoint (of the target), then
// every result field that has a CSV column, in result_schema.h's order:
//   concurrency, repetition, source ("measured" | "imported"), tool,
//   tool_version, started_at, host_name, thread_placement, cancelled ("true" |
//   "false"), duration_s, threads, complete, failed, failed_connect,
//   failed_receive, failed_length, failed_exceptions, failed_write,
//   failed_timeout, non_2xx, keep_alive, bytes_total, bytes_body, bytes_sent,
//   hits, misses, client_cpu_s, requests_per_second, transfer_rate_kib_s,
//   throughput_mbit_s, time_per_request_ms, time_per_request_across_ms,
//   latency_min_ms, latency_mean_ms, latency_sd_ms, latency_max_ms,
//   latency_p50_ms, latency_p66_ms, latency_p75_ms, latency_p80_ms,
//   latency_p90_ms, latency_p95_ms, latency_p98_ms, latency_p99_ms,
//   latency_p99_9_ms, latency_p99_99_ms, latency_p100_ms, connect_mean_ms,
//   waiting_mean_ms, processing_mean_ms, server_software, document_length,
//   first_error, load_model ("closed-loop" | "fixed-rate"), offered_rate
//   (fixed rate: requests/s), latency_uncorrected_mean_ms,
//   latency_uncorrected_p50_ms, latency_uncorrected_p90_ms,
//   latency_uncorrected_p99_ms, latency_uncorrected_p99_9_ms (fixed rate:
//   from the actual send, beside the corrected latency_* figures),
//   max_backlog, client_saturated (fixed rate: most requests due but not yet
//   sent; "true" when the client's CPU could not keep the schedule),
//   server_cpu_us_per_request, softirq_us_per_request,
//   client_cpu_us_per_request, other_load_percent, noisy, noise_reason,
//   cpu_user_percent, cpu_system_percent, cpu_irq_percent,
//   cpu_softirq_percent, cpu_steal_percent, cpu_idle_percent, server_cpu_s
//   (where the CPU went over the measured window: cpu_usage.h),
//   failed_tls, tls_handshakes, tls_resumed, tls_resumed_ratio (resumed /
//   handshakes), tls_protocol, tls_cipher, tls_mean_ms, tls_p50_ms,
//   tls_p99_ms (https: one sample per handshake; empty for plain http),
//   failed_rst_stream, failed_goaway (HTTP/2's failure classes),
//   capacity_step (a capacity search's step: its number in its search)
// For a fixed-rate result offered_rate is the rate level, requests_per_second
// the rate achieved and latency_* the corrected latency.
// requests_per_second is ops/s for memcached, transactions/s for tcp-rr;
// latency is the total time per request.
QStringList resultsCsvColumns();
QByteArray resultsCsv(const Session& session);

// Summary CSV in long form: one row per series x concurrency x metric, so
// that a new metric adds rows, never columns. Rows in Comparison order.
// Columns:
//   target, target_id, mode, protocol, concurrency, metric (a MetricInfo id),
//   unit, n, mean, sd, ci95_low, ci95_high, vs_baseline_percent, p_value,
//   significant ("true" | "false"; empty for the baseline and when n/a),
//   verdict ("baseline" | "significant" | "within-noise" | "n/a"),
//   imported ("true" when any sample came from an imported report),
//   tool and load_model of the row's series (ComparisonSeries: "ab",
//   "fixed-rate 2000/s"; joined by "+" when pooled), offered_rate (the rate
//   level of a fixed-rate series; empty otherwise)
// A rate sweep's level is its series: one per rate, with requests_per_second
// (achieved), latency_* (corrected) and latency_uncorrected_* metric rows.
// A capacity plan adds one row per target after them (capacity_comparison.h):
// metric "capacity" (req/s, ops/s or trans/s), concurrency the plan's
// connections, load_model "capacity at p99 <= 5 ms" (the objective in ASCII),
// the statistics over the searches that found a capacity and the change
// against the baseline's capacity.
QStringList summaryCsvColumns();
QByteArray summaryCsv(const Session& session, const Comparison& comparison);

} // namespace loadscope::app
