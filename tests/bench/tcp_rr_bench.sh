#!/usr/bin/env bash
# One-connection TCP_RR: loadscope-cli tcp-rr against netperf TCP_RR and a
# plain blocking send()/recv() loop (blocking_rr_client, built beside this
# script), with client and server on the same CPU and on different CPUs
# (client: --cpus / taskset -c; server: taskset -c), in alternating rounds.
#
# netperf runs `netperf -t TCP_RR -H 127.0.0.1 -l SECONDS -- -r REQ,RESP`
# against a netserver started here on a free port. loadscope-cli tcp-rr cannot
# load netserver (netserver only opens a data socket after netperf's control
# exchange on its port; a plain request there waits for a reply that never
# comes), so loadscope, the blocking loop and engine_rr_client (the engine
# alone, without the rest of loadscope-cli, pinned the same way) run against
# loadscope-cli's embedded echo server, pinned where netserver is. So that the
# server's share of a difference shows, netperf also runs against that echo
# server ("netperf-echo": netperf -N, no control connection, data connection
# straight to the echo server's port with -- -P ,PORT).
#
# Prints, per placement, the median transactions/s of each client, the median
# of the per-round ratios (loadscope over netperf, over netperf-echo and over
# the blocking loop; the blocking loop over netperf; the engine over the
# blocking loop), each client's CPU per transaction (user + sys of the client
# process over its transactions, from bench_run) and the server's meanwhile
# (/proc/PID/stat). Goal: loadscope at least 0.95x netperf's transactions/s on
# one connection.
#
#   tests/bench/tcp_rr_bench.sh [path/to/loadscope-cli [path/to/blocking_rr_client]]
#   ROUNDS=3 SECONDS_PER_RUN=3 REQUEST=1 RESPONSE=1 tests/bench/tcp_rr_bench.sh
#
# netperf and netserver come from /work/shared/peers/build-peers.sh (NETPERF_BIN=DIR
# for another build); when they are missing the script runs build-peers.sh, and
# if that fails it skips netperf, saying so. Only 127.0.0.1 is used; both
# servers are started here and stopped on exit; every client run is bounded by
# timeout(1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
blocking=${2:-$(dirname "$cli")/../../tests/bench/blocking_rr_client}
engine_only=$(dirname "$blocking")/engine_rr_client
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-3}
request=${REQUEST:-1}
response=${RESPONSE:-1}
peers_script=/work/shared/peers/build-peers.sh
netperf_bin=${NETPERF_BIN:-/tmp/loadscope-peers/bin}
limit=$((${seconds%.*} + 30)) # seconds any one client run may take before timeout stops it

bench_require "build loadscope-cli, blocking_rr_client and engine_rr_client; apt-get install python3" \
  "$cli" "$blocking" "$engine_only" /usr/bin/taskset /usr/bin/python3 /usr/bin/timeout
[ "$(nproc)" -ge 2 ] || { echo "needs two CPUs for the different-CPU case" >&2; exit 1; }
if { [ ! -x "$netperf_bin/netperf" ] || [ ! -x "$netperf_bin/netserver" ]; } \
   && [ -z "${NETPERF_BIN:-}" ] && [ -x "$peers_script" ]; then
  echo "netperf not built: running $peers_script" >&2
  timeout 1800 "$peers_script" >&2 || echo "build-peers.sh failed" >&2
fi
netperf=
if [ -x "$netperf_bin/netperf" ] && [ -x "$netperf_bin/netserver" ]; then
  netperf=$netperf_bin/netperf
else
  echo "netperf/netserver not available in $netperf_bin: skipping netperf" >&2
fi

bench_setup

# start_echo CPU: one echo loop pinned to CPU; sets $echo_pid and $port.
start_echo() {
  bench_start taskset -c "$1" "$cli" serve echo --port 0 --threads 1 \
    --request-size "$request" --response-size "$response" >"$work/serve.out" 2>"$work/serve.err"
  echo_pid=$bench_pid
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.out")
    [ -n "$port" ] && return
    sleep 0.05
  done
  echo "echo server did not start:" >&2; cat "$work/serve.err" >&2; exit 1
}

# start_netserver CPU: netserver pinned to CPU, in the foreground (-D) and
# serving tests itself (-f, no child per test), on 127.0.0.1 and a free port;
# sets $netserver_pid and $netserver_port.
start_netserver() {
  netserver_port=$(bench_free_port)
  bench_start taskset -c "$1" "$netperf_bin/netserver" -D -f -4 -L 127.0.0.1 -p "$netserver_port" \
    >"$work/netserver.out" 2>&1
  netserver_pid=$bench_pid
  bench_wait_port "$netserver_port"
}

ticks_per_second=$(getconf CLK_TCK)
# server_cpu_seconds PID: user + sys of the process PID so far (all its threads).
server_cpu_seconds() {
  awk -v hz="$ticks_per_second" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$1/stat"
}

# measure NAME SERVER_PID COMMAND...: runs it with bench_run, bounded by
# timeout; appends "transactions rate cpu_s server_cpu_s" to $work/NAME.rows
# (server_cpu_s: what the server SERVER_PID used meanwhile).
measure() {
  local name=$1 server=$2; shift 2
  local server_before server_after
  server_before=$(server_cpu_seconds "$server")
  bench_run "$name" timeout -k 5 "$limit" "$@"
  server_after=$(server_cpu_seconds "$server")
  local transactions rate
  case $name in
    netperf|netperf_echo) # -k keyval output: LOCAL_SEND_CALLS is one per transaction
      transactions=$(awk -F= '$1 == "LOCAL_SEND_CALLS" {print $2}' "$work/out")
      rate=$(awk -F= '$1 == "TRANSACTION_RATE" {print $2}' "$work/out") ;;
    blocking|engine) # "transactions N seconds S rate R"
      transactions=$(awk '{print $2}' "$work/out")
      rate=$(awk '{print $6}' "$work/out") ;;
    *) transactions=$(bench_json_number complete)
       rate=$(bench_json_number transactions_per_second) ;;
  esac
  if [ -z "$transactions" ] || [ -z "$rate" ]; then
    echo "$name: no figures in its output:" >&2; tail -5 "$work/out" >&2; exit 1
  fi
  echo "$transactions $rate $(bench_cpu_seconds) $(awk -v a="$server_before" -v b="$server_after" 'BEGIN {print b - a}')" >>"$work/$name.rows"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rates() { awk '{print $2}' "$work/$1.rows"; }                  # NAME -> one rate a line
median_rate() { rates "$1" | median; }
cpu_us() { awk '{t += $1; c += $3} END {printf "%.2f", c * 1e6 / t}' "$work/$1.rows"; } # NAME -> client CPU us/transaction
server_us() { awk '{t += $1; c += $4} END {printf "%.2f", c * 1e6 / t}' "$work/$1.rows"; } # NAME -> server CPU us/transaction
ratio_median() { paste -d' ' <(rates "$1") <(rates "$2") | awk '{print $1 / $2}' | median; } # A B -> median of A/B per round

echo "TCP_RR -r $request,$response, one connection, ${seconds}s x $rounds rounds per client and placement"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"

clients=(blocking loadscope engine)
[ -z "$netperf" ] || clients=(netperf netperf_echo "${clients[@]}")
for placement in "0 0 same" "1 0 different"; do
  read -r server_cpu client_cpu label <<<"$placement"
  start_echo "$server_cpu"
  [ -z "$netperf" ] || start_netserver "$server_cpu"
  for client in "${clients[@]}"; do : >"$work/$client.rows"; done
  for _ in $(seq "$rounds"); do
    if [ -n "$netperf" ]; then
      measure netperf "$netserver_pid" taskset -c "$client_cpu" "$netperf" -L 127.0.0.1 -H 127.0.0.1 -p "$netserver_port" \
        -t TCP_RR -l "$seconds" -P 0 -- -r "$request,$response" \
        -k TRANSACTION_RATE,ELAPSED_TIME,LOCAL_SEND_CALLS
      measure netperf_echo "$echo_pid" taskset -c "$client_cpu" "$netperf" -N -L 127.0.0.1 -H 127.0.0.1 \
        -t TCP_RR -l "$seconds" -P 0 -- -r "$request,$response" -P ",$port" \
        -k TRANSACTION_RATE,ELAPSED_TIME,LOCAL_SEND_CALLS
    fi
    measure blocking "$echo_pid" taskset -c "$client_cpu" "$blocking" 127.0.0.1 "$port" "$seconds" "$request" "$response"
    measure loadscope "$echo_pid" "$cli" tcp-rr -r "$request,$response" -l "$seconds" --cpus "$client_cpu" \
      -q --json - "127.0.0.1:$port"
    measure engine "$echo_pid" "$engine_only" "$port" "$seconds" "$client_cpu" "$request" "$response"
  done
  bench_stop "$echo_pid"
  [ -z "$netperf" ] || bench_stop "$netserver_pid"
  {
    echo "placement=$label server_cpu=$server_cpu client_cpu=$client_cpu"
    for client in "${clients[@]}"; do
      echo "$client $(median_rate "$client") $(cpu_us "$client") $(server_us "$client") $(rates "$client" | paste -sd' ')"
    done
    if [ -n "$netperf" ]; then
      echo "ratio loadscope/netperf $(ratio_median loadscope netperf)"
      echo "ratio loadscope/netperf_echo $(ratio_median loadscope netperf_echo)"
      echo "ratio engine/netperf $(ratio_median engine netperf)"
      echo "ratio blocking/netperf $(ratio_median blocking netperf)"
    fi
    echo "ratio loadscope/blocking $(ratio_median loadscope blocking)"
    echo "ratio engine/blocking $(ratio_median engine blocking)"
  } >"$work/summary-$label"
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"

field() { awk -v k="$2" -v c="$3" '$1 == k {print $c}' "$work/summary-$1"; } # PLACEMENT CLIENT COLUMN
ratio_field() { awk -v k="$2" '$1 == "ratio" && $2 == k {printf "%.3f", $3}' "$work/summary-$1"; }
netperf_field() { if [ -n "$netperf" ]; then "$@"; else echo -; fi; } # COMMAND... or - without netperf

echo
echo "transactions/s (median of rounds) and median per-round ratios (npe: netperf -N against the echo server)"
printf '%-14s %9s %9s %9s %9s %9s %7s %7s %7s %7s %7s\n' placement netperf npe blocking loadscope engine \
  lds/np lds/npe blk/np lds/blk eng/blk
for label in same different; do
  printf '%-14s %9s %9s %9.0f %9.0f %9.0f %7s %7s %7s %7s %7s\n' "$label CPU" \
    "$(netperf_field printf '%.0f' "$(field "$label" netperf 2)")" \
    "$(netperf_field printf '%.0f' "$(field "$label" netperf_echo 2)")" \
    "$(field "$label" blocking 2)" "$(field "$label" loadscope 2)" "$(field "$label" engine 2)" \
    "$(netperf_field ratio_field "$label" loadscope/netperf)" \
    "$(netperf_field ratio_field "$label" loadscope/netperf_echo)" \
    "$(netperf_field ratio_field "$label" blocking/netperf)" \
    "$(ratio_field "$label" loadscope/blocking)" "$(ratio_field "$label" engine/blocking)"
done
for column in "3 client" "4 server"; do
  read -r c what <<<"$column"
  echo
  case $what in
    client) echo "client CPU us per transaction (user + sys of the client process over all rounds)" ;;
    *) echo "server CPU us per transaction meanwhile (netserver for netperf, the echo server for the rest)" ;;
  esac
  printf '%-14s %9s %9s %9s %9s %9s %7s %7s\n' placement netperf npe blocking loadscope engine lds/np lds/npe
  for label in same different; do
    np=$(netperf_field field "$label" netperf "$c")
    npe=$(netperf_field field "$label" netperf_echo "$c")
    printf '%-14s %9s %9s %9s %9s %9s %7s %7s\n' "$label CPU" "$np" "$npe" "$(field "$label" blocking "$c")" \
      "$(field "$label" loadscope "$c")" "$(field "$label" engine "$c")" \
      "$(netperf_field bench_ratio "$(field "$label" loadscope "$c")" "$np")" \
      "$(netperf_field bench_ratio "$(field "$label" loadscope "$c")" "$npe")"
  done
done
echo
for label in same different; do
  echo "rounds, $label CPU (tr/s):"
  awk '$1 != "ratio" && $1 !~ /=/ {printf "  %-13s", $1; for (i = 5; i <= NF; i++) printf " %s", $i; print ""}' "$work/summary-$label"
done
[ -z "$netperf" ] || echo "goal: loadscope >= 0.95x netperf's transactions/s (lds/np, median per-round ratio)"
echo "(netperf runs against netserver; npe, blocking, loadscope and engine against loadscope-cli's echo server)"
