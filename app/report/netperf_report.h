#pragma once

#include "app/session/cpu_usage.h"
#include "app/session/point_result.h"
#include "engine/run_result.h"

#include <QJsonObject>
#include <QString>

namespace loadscope::app {

// What `loadscope-cli tcp-rr`, `tcp-stream`, `udp-rr` or `udp-stream` ran, as the report and
// the JSON describe it.
struct NetperfRunSetup {
    QString test;   // "TCP_RR", "TCP_CRR", "TCP_STREAM", "UDP_RR" or "UDP_STREAM"
    QString server; // "HOST:PORT" as given
    uint32_t requestSize = 1;
    uint32_t responseSize = 1;
    uint32_t sendSize = 0;     // TCP_STREAM's and UDP_STREAM's -m
    bool tls = false;          // tcp-rr --tls: the TLS lines and the TLS failure class
    uint32_t burst = 0;        // UDP_RR's -b
    double timeoutSeconds = 0; // UDP_RR: when a request counts as lost
    // This host's default socket buffer sizes (a new TCP or UDP socket's SO_SNDBUF
    // and SO_RCVBUF): the engine leaves them alone, so they are what the run used
    // locally; the peer's are its own.
    int socketSendBytes = 0;
    int socketRecvBytes = 0;
};

// netperf's request/response layout: a banner naming the test and target,
// the socket sizes, request and response sizes, elapsed time and transaction
// rate, then what netperf does not print: transactions and failures by class,
// latency percentiles (p50, p90, p99, p99.9, max) in microseconds, connections
// opened and where the load generator's threads ran; with TLS, the protocol and cipher, the
// handshakes (resumed and full) and their time, as the ab report prints them. UDP_RR adds the
// lost requests to the failures and a line of the answers that completed no request.
QString formatNetperfRrReport(const engine::RunResult& result, const NetperfRunSetup& setup);

// netperf's stream layout: receive and send socket sizes, send message size,
// elapsed time and throughput in 10^6 bits/s (bytes sent plus received during
// the measured time; a sink sends nothing back, so this is the send rate),
// then bytes sent, failures and thread placement.
QString formatNetperfStreamReport(const engine::RunResult& result, const NetperfRunSetup& setup);

// netperf UDP_STREAM's layout: the send line (socket size, message size, elapsed time,
// messages sent and sends refused, throughput) and the receive line (what the sink counted,
// and its throughput), then the loss, the sink's out-of-order and duplicate counts, failures
// and thread placement. Without the sink's answer the receive line says it is unknown.
QString formatNetperfUdpStreamReport(const engine::RunResult& result, const NetperfRunSetup& setup);

// The --json objects below are cliResultJson() of the run as a sweep keeps
// its point (cli::oneShotResult(): the "cpu" object's noisy and noise_reason
// judged by --noise-threshold) with the setup.
//
// The --json object of `loadscope-cli tcp-rr`: the keys every command has (complete =
// transactions, failed, failed_connect, failed_receive, failed_length,
// failed_exceptions, failed_write, timeouts, bytes_total (received),
// bytes_body, bytes_sent, duration_s, transfer_rate_kib_s, concurrency
// (connections), threads, thread_cpus, threads_pinned, client_cpu_s,
// client_cpu_load, connections_opened (one per transaction with TCP_CRR),
// cancelled, first_error when there was one, latency_ms (per transaction,
// connect included for TCP_CRR), connect_ms, waiting_ms, processing_ms) plus:
//   test                     "TCP_RR" or "TCP_CRR"
//   server                   "HOST:PORT" as given
//   request_size, response_size   bytes, -r REQ,RESP
//   transactions_per_second  successful / duration_s, netperf's "Trans. Rate"
//   socket_send_bytes, socket_recv_bytes  this host's default socket buffers
//   with --tls: tls_handshakes, tls_resumed, tls_resumed_ratio, tls_protocol, tls_cipher,
//   tls_ms (the result schema's TLS fields, as http's for https)
QJsonObject tcpRrResultJson(const PointResult& result, const NetperfRunSetup& setup);

// The --json object of `loadscope-cli tcp-stream`: the keys every command has
// (complete counts nothing in a stream test; bytes_sent is what was sent
// during the measured time) plus:
//   test               "TCP_STREAM"
//   server             "HOST:PORT" as given
//   send_size          bytes per send call, -m
//   throughput_mbit_s  (bytes_sent + bytes_total) x 8 / 10^6 / duration_s; a sink
//                      sends nothing back, so netperf's 10^6bits/sec
//   socket_send_bytes, socket_recv_bytes  this host's default socket buffers
QJsonObject tcpStreamResultJson(const PointResult& result, const NetperfRunSetup& setup);

// The --json object of `loadscope-cli udp-rr`: tcp-rr's keys (no TLS) plus failed_lost (in
// failed), answers_out_of_order, answers_duplicate, answers_late, answers_stray, burst,
// timeout_s and sequence_numbers (whether requests and answers carry them).
QJsonObject udpRrResultJson(const PointResult& result, const NetperfRunSetup& setup);

// The --json object of `loadscope-cli udp-stream`: tcp-stream's keys plus datagrams_sent,
// send_errors and, when the sink said what it received, sink_datagrams, sink_bytes,
// sink_out_of_order, sink_duplicates, delivered_mbit_s and datagram_loss_percent.
QJsonObject udpStreamResultJson(const PointResult& result, const NetperfRunSetup& setup);

// The run's options as the --json objects name them: test, server,
// request_size and response_size (or send_size for the stream tests),
// socket_send_bytes, socket_recv_bytes.
void addNetperfSetupJson(QJsonObject& object, const NetperfRunSetup& setup);

} // namespace loadscope::app
