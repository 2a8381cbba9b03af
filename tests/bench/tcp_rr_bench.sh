#!/usr/bin/env bash
# One-connection TCP_RR: loadscope-cli tcp-rr against a plain blocking
# send()/recv() loop (blocking_rr_client, built beside this script), both
# against the embedded echo server, with client and server on the same CPU
# and on different CPUs (client: --cpus / taskset -c; server: taskset -c), in
# alternating rounds. Prints transactions/s and the ratio to the blocking loop
# (goal: at least 0.95x). On a shared machine single runs swing widely, so the
# two clients alternate round by round and the figures are medians: of each
# client's rates, and of the per-round ratios (loadscope over the blocking run
# just before it). A third client, engine_rr_client (the engine alone, without
# the rest of loadscope-cli, pinned the same way), runs in each round too: its
# ratio says how much of a gap belongs to the engine.
#
#   tests/bench/tcp_rr_bench.sh [path/to/loadscope-cli [path/to/blocking_rr_client]]
#   ROUNDS=3 SECONDS_PER_RUN=5 REQUEST=1 RESPONSE=1 tests/bench/tcp_rr_bench.sh
#
# Only 127.0.0.1 is used; the echo server is started here and stopped on exit.
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

bench_require "build loadscope-cli and blocking_rr_client" "$cli" "$blocking" "$engine_only" /usr/bin/taskset
[ "$(nproc)" -ge 2 ] || { echo "needs two CPUs for the different-CPU case" >&2; exit 1; }

bench_setup

# start_server CPU: one echo loop pinned to CPU; sets $port.
start_server() {
  bench_start taskset -c "$1" "$cli" serve echo --port 0 --threads 1 \
    --request-size "$request" --response-size "$response" >"$work/serve.out" 2>"$work/serve.err"
  server_pid=$bench_pid
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.out")
    [ -n "$port" ] && return
    sleep 0.05
  done
  echo "echo server did not start:" >&2; cat "$work/serve.err" >&2; exit 1
}

echo "TCP_RR -r $request,$response, one connection, ${seconds}s x $rounds rounds per client and placement"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '\n%-30s %14s %15s %14s %18s\n' placement "blocking tr/s" "loadscope tr/s" "median ratio" "engine-only ratio"
for placement in "0 0 same CPU" "1 0 different CPUs"; do
  read -r server_cpu client_cpu label <<<"$placement"
  start_server "$server_cpu"
  : >"$work/blocking.rows"
  : >"$work/loadscope.rows"
  : >"$work/engine.rows"
  for _ in $(seq "$rounds"); do
    taskset -c "$client_cpu" "$blocking" 127.0.0.1 "$port" "$seconds" "$request" "$response" \
      | awk '{print $6}' >>"$work/blocking.rows"
    "$cli" tcp-rr -r "$request,$response" -l "$seconds" --cpus "$client_cpu" -q --json - "127.0.0.1:$port" \
      | awk -F'[:,]' '/"transactions_per_second"/ {gsub(/ /,"",$2); print $2}' >>"$work/loadscope.rows"
    "$engine_only" "$port" "$seconds" "$client_cpu" "$request" "$response" \
      | awk '{print $6}' >>"$work/engine.rows"
  done
  bench_stop "$server_pid"
  ours=$(median <"$work/loadscope.rows")
  theirs=$(median <"$work/blocking.rows")
  ratio=$(paste -d' ' "$work/loadscope.rows" "$work/blocking.rows" | awk '{print $1 / $2}' | median)
  engine_ratio=$(paste -d' ' "$work/engine.rows" "$work/blocking.rows" | awk '{print $1 / $2}' | median)
  printf '%-30s %14.0f %15.0f %14.3f %18.3f\n' "$label (srv $server_cpu, cli $client_cpu)" \
    "$theirs" "$ours" "$ratio" "$engine_ratio"
  echo "  rounds: blocking $(paste -sd' ' "$work/blocking.rows"); loadscope $(paste -sd' ' "$work/loadscope.rows"); engine only $(paste -sd' ' "$work/engine.rows")"
done
echo "goal: loadscope >= 0.95x the blocking loop"
