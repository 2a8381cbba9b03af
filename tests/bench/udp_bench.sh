#!/usr/bin/env bash
# One-socket UDP_RR and UDP_STREAM: loadscope-cli udp-rr and udp-stream against
# netperf's UDP_RR and UDP_STREAM, with client and server on the same CPU and on
# different CPUs (client: --cpus / taskset -c; server: taskset -c), in
# alternating rounds, and the ratios of each round's pair.
#
# netperf runs against a netserver started here on a free port; loadscope-cli
# cannot load netserver (it opens its data socket only after netperf's control
# exchange), so loadscope runs against its own `serve echo --udp` and
# `serve sink --udp`, pinned where netserver is. So that the server's share of
# a difference shows, netperf also runs against those ("npe": netperf -N, no
# control connection, straight to the echo's or sink's port with -- -P ,PORT).
#
# UDP_RR: transactions/s, client and server CPU per transaction (user + sys of
# the processes, from run_timed.py and /proc/PID/stat). UDP_STREAM: the send
# throughput and what the receiver got (netperf: its remote line, from
# netserver; loadscope: its sink's count, asked in the stream), client CPU per
# message sent. netperf -N has no receiver's figures (no control connection).
#
#   tests/bench/udp_bench.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=3 REQUEST=1 RESPONSE=1 MESSAGE=1472 tests/bench/udp_bench.sh
#
# netperf and netserver come from /work/shared/peers/build-peers.sh (NETPERF_BIN=DIR
# for another build); when they are missing the script runs build-peers.sh, as
# tcp_rr_bench.sh does, and stops with one line if that fails (every figure here
# is a ratio to netperf's). Only 127.0.0.1 is used; the
# servers are started here and stopped on exit; every client run is bounded by
# timeout(1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-3}
request=${REQUEST:-1}
response=${RESPONSE:-1}
message=${MESSAGE:-1472}
peers_script=/work/shared/peers/build-peers.sh
netperf_bin=${NETPERF_BIN:-/tmp/loadscope-peers/bin}
limit=$((${seconds%.*} + 30))

bench_require "build loadscope-cli; apt-get install python3" "$cli" /usr/bin/taskset /usr/bin/python3 /usr/bin/timeout
if { [ ! -x "$netperf_bin/netperf" ] || [ ! -x "$netperf_bin/netserver" ]; } \
   && [ -z "${NETPERF_BIN:-}" ] && [ -x "$peers_script" ]; then
  echo "netperf not built: running $peers_script" >&2
  timeout 1800 "$peers_script" >&2 || echo "build-peers.sh failed" >&2
fi
bench_require "run $peers_script" "$netperf_bin/netperf" "$netperf_bin/netserver"
[ "$(nproc)" -ge 2 ] || { echo "needs two CPUs for the different-CPU case" >&2; exit 1; }
netperf=$netperf_bin/netperf
bench_setup

# start_udp KIND CPU ARGS...: loadscope-cli serve KIND --udp on one loop pinned to CPU;
# sets $udp_pid and $udp_port.
start_udp() {
  local kind=$1 cpu=$2; shift 2
  bench_start taskset -c "$cpu" "$cli" serve "$kind" --udp --port 0 --threads 1 "$@" \
    >"$work/$kind.out" 2>"$work/$kind.err"
  udp_pid=$bench_pid
  udp_port=
  for _ in $(seq 100); do
    udp_port=$(sed -n 's/^listening on udp 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/$kind.out")
    [ -n "$udp_port" ] && return
    sleep 0.05
  done
  echo "serve $kind --udp did not start:" >&2; cat "$work/$kind.err" >&2; exit 1
}

start_netserver() { # CPU
  netserver_port=$(bench_free_port)
  bench_start taskset -c "$1" "$netperf_bin/netserver" -D -f -4 -L 127.0.0.1 -p "$netserver_port" \
    >"$work/netserver.out" 2>&1
  netserver_pid=$bench_pid
  bench_wait_port "$netserver_port"
}

ticks=$(getconf CLK_TCK)
server_cpu() { awk -v hz="$ticks" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$1/stat"; }
kv() { awk -F= -v k="$1" '$1 == k {print $2}' "$work/out"; } # netperf -k KEY

# rr NAME SERVER_PID COMMAND...: appends "transactions rate cpu_s server_cpu_s".
rr() {
  local name=$1 server=$2; shift 2
  local before after transactions rate
  before=$(server_cpu "$server")
  bench_run "$name" timeout -k 5 "$limit" "$@"
  after=$(server_cpu "$server")
  case $name in
    netperf*|npe*) transactions=$(kv LOCAL_SEND_CALLS); rate=$(kv THROUGHPUT) ;;
    *) transactions=$(bench_json_number complete); rate=$(bench_json_number transactions_per_second) ;;
  esac
  if [ -z "$transactions" ] || [ -z "$rate" ]; then
    echo "$name: no figures:" >&2; tail -5 "$work/out" >&2; exit 1
  fi
  echo "$transactions $rate $(bench_cpu_seconds) $(awk -v a="$before" -v b="$after" 'BEGIN {print b - a}')" >>"$work/$name.rows"
}

# stream NAME COMMAND...: appends "messages sent_mbit delivered_mbit cpu_s" (delivered n/a for npe).
stream() {
  local name=$1; shift
  bench_run "$name" timeout -k 5 "$limit" "$@"
  local messages sent delivered
  case $name in
    netperf_stream) messages=$(kv LOCAL_SEND_CALLS); sent=$(kv LOCAL_SEND_THROUGHPUT); delivered=$(kv THROUGHPUT) ;;
    npe_stream) messages=$(kv LOCAL_SEND_CALLS); sent=$(kv LOCAL_SEND_THROUGHPUT); delivered=n/a ;;
    *) messages=$(bench_json_number datagrams_sent); sent=$(bench_json_number throughput_mbit_s)
       delivered=$(bench_json_number delivered_mbit_s) ;;
  esac
  if [ -z "$messages" ] || [ -z "$sent" ]; then
    echo "$name: no figures:" >&2; tail -5 "$work/out" >&2; exit 1
  fi
  echo "$messages $sent ${delivered:-n/a} $(bench_cpu_seconds)" >>"$work/$name.rows"
}

median() { bench_median_range 0 | awk '{print $1}'; }
us_per() { awk -v c="$2" '{n += $1; t += $c} END {if (n > 0) printf "%.2f", t * 1e6 / n; else printf "n/a"}' "$work/$1.rows"; }

echo "UDP_RR -r $request,$response and UDP_STREAM -m $message, one socket, ${seconds}s x $rounds rounds per client and placement"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"

for placement in "0 0 same" "1 0 different"; do
  read -r server_cpu client_cpu label <<<"$placement"
  start_netserver "$server_cpu"
  start_udp echo "$server_cpu" --response-size "$response"
  echo_pid=$udp_pid echo_port=$udp_port
  start_udp sink "$server_cpu"
  sink_pid=$udp_pid sink_port=$udp_port
  for name in netperf npe loadscope netperf_stream npe_stream loadscope_stream; do : >"$work/$name.rows"; done
  for round in $(seq "$rounds"); do
    # Alternate who goes first, so that a drift of the machine's load hits each alike.
    order="netperf npe loadscope"
    [ $((round % 2)) -eq 0 ] && order="loadscope npe netperf"
    for client in $order; do
      case $client in
        netperf) rr netperf "$netserver_pid" taskset -c "$client_cpu" "$netperf" -L 127.0.0.1 -H 127.0.0.1 \
                   -p "$netserver_port" -t UDP_RR -l "$seconds" -P 0 -- -r "$request,$response" \
                   -k THROUGHPUT,LOCAL_SEND_CALLS ;;
        npe) rr npe "$echo_pid" taskset -c "$client_cpu" "$netperf" -N -L 127.0.0.1 -H 127.0.0.1 -t UDP_RR \
               -l "$seconds" -P 0 -- -r "$request,$response" -P ",$echo_port" -k THROUGHPUT,LOCAL_SEND_CALLS ;;
        loadscope) rr loadscope "$echo_pid" "$cli" udp-rr -r "$request,$response" -l "$seconds" \
                     --cpus "$client_cpu" -q --json - "127.0.0.1:$echo_port" ;;
      esac
    done
    for client in $order; do
      case $client in
        netperf) stream netperf_stream taskset -c "$client_cpu" "$netperf" -L 127.0.0.1 -H 127.0.0.1 \
                   -p "$netserver_port" -t UDP_STREAM -l "$seconds" -P 0 -- -m "$message" \
                   -k THROUGHPUT,LOCAL_SEND_THROUGHPUT,LOCAL_SEND_CALLS ;;
        npe) stream npe_stream taskset -c "$client_cpu" "$netperf" -N -L 127.0.0.1 -H 127.0.0.1 \
               -t UDP_STREAM -l "$seconds" -P 0 -- -m "$message" -P ",$sink_port" \
               -k THROUGHPUT,LOCAL_SEND_THROUGHPUT,LOCAL_SEND_CALLS ;;
        loadscope) stream loadscope_stream "$cli" udp-stream -m "$message" -l "$seconds" \
                     --cpus "$client_cpu" -q --json - "127.0.0.1:$sink_port" ;;
      esac
    done
  done
  bench_stop "$netserver_pid"; bench_stop "$echo_pid"; bench_stop "$sink_pid"
  {
    echo "$label UDP_RR tr/s: netperf $(awk '{print $2}' "$work/netperf.rows" | median)" \
      "npe $(awk '{print $2}' "$work/npe.rows" | median)" \
      "loadscope $(awk '{print $2}' "$work/loadscope.rows" | median)"
    echo "$label UDP_RR ratio loadscope/netperf $(bench_round_ratios loadscope netperf)" \
      "loadscope/npe $(bench_round_ratios loadscope npe) (median min max of the rounds)"
    echo "$label UDP_RR client CPU us/tr: netperf $(us_per netperf 3) npe $(us_per npe 3)" \
      "loadscope $(us_per loadscope 3); server CPU us/tr: netserver $(us_per netperf 4)" \
      "echo (npe) $(us_per npe 4) echo (loadscope) $(us_per loadscope 4)"
    echo "$label UDP_STREAM sent Mbit/s: netperf $(awk '{print $2}' "$work/netperf_stream.rows" | median)" \
      "npe $(awk '{print $2}' "$work/npe_stream.rows" | median)" \
      "loadscope $(awk '{print $2}' "$work/loadscope_stream.rows" | median)"
    echo "$label UDP_STREAM received Mbit/s: netperf (netserver) $(awk '{print $3}' "$work/netperf_stream.rows" | median)" \
      "loadscope (its sink) $(awk '{print $3}' "$work/loadscope_stream.rows" | median)"
    # shellcheck disable=SC2016 # an awk field for bench_round_ratios
    echo "$label UDP_STREAM ratio sent loadscope/netperf $(bench_round_ratios loadscope_stream netperf_stream)" \
      "loadscope/npe $(bench_round_ratios loadscope_stream npe_stream);" \
      "received loadscope/netperf $(bench_round_ratios loadscope_stream netperf_stream '$3')"
    echo "$label UDP_STREAM client CPU us/message: netperf $(us_per netperf_stream 4) npe $(us_per npe_stream 4)" \
      "loadscope $(us_per loadscope_stream 4)"
  } | tee "$work/summary-$label"
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(netperf against netserver; npe (netperf -N) and loadscope against loadscope-cli's serve echo/sink --udp)"
