#!/usr/bin/env bash
# How exact each tool's latency is: loadscope-cli http, wrk and (when
# /work/shared/peers/build-peers.sh built it) wrk2 against fixed_delay_server,
# which answers every request exactly DELAY_MS after it arrived, at
# c = 1, 16, 64, 256 on one thread. Prints each tool's p50 and p99 minus the
# true delay, and how late the server's own answers went out in that run
# (its timer's lateness, part of every tool's figure alike).
#
#   tests/bench/latency_accuracy.sh [path/to/loadscope-cli]
#   DELAY_MS=2 SECONDS_PER_RUN=5 LEVELS="1 16 64 256" tests/bench/latency_accuracy.sh
#
# Only 127.0.0.1 is loaded; each server is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../../build/release/app/cli/loadscope-cli}
server=${SERVER:-$(dirname "$cli")/../../tests/bench/fixed_delay_server}
delay_ms=${DELAY_MS:-2}
seconds=${SECONDS_PER_RUN:-5}
levels=${LEVELS:-"1 16 64 256"}
wrk2=${WRK2:-/tmp/loadscope-peers/bin/wrk2}

for tool in /usr/bin/wrk "$cli" "$server"; do
  [ -x "$tool" ] || { echo "missing $tool (scripts/install-deps.sh test; build the release preset)" >&2; exit 1; }
done
tools="loadscope wrk"
if [ -x "$wrk2" ]; then
  tools="$tools wrk2"
else
  echo "note: wrk2 not built ($wrk2 missing; /work/shared/peers/build-peers.sh builds it): skipped"
fi
ulimit -n 65536 2>/dev/null || true

work=$(mktemp -d)
server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT

# start_server: runs fixed_delay_server on a free port, leaves the port in $port
start_server() {
  rm -f "$work/server.out" # before the new server writes it, so no old port is read
  "$server" --delay-us $((delay_ms * 1000)) >"$work/server.out" &
  server_pid=$!
  for _ in $(seq 50); do
    port=$(awk '/^port/ {print $2}' "$work/server.out" 2>/dev/null)
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "fixed_delay_server did not start" >&2
  exit 1
}

# to_ms VALUE-WITH-UNIT (wrk's "2.05ms", "812.00us", "1.20s") -> milliseconds
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); print v + 0 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 }
    else print v + 0 }'
}

# run TOOL C: prints "p50_ms p99_ms"
run() {
  local tool=$1 c=$2 url="http://127.0.0.1:$port/"
  case $tool in
    loadscope)
      "$cli" http -k -c "$c" --threads 1 --warmup 1 -t "$seconds" -q --json - "$url" >"$work/out"
      python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency_ms"]; print(l["p50"], l["p99"])' "$work/out" ;;
    wrk)
      /usr/bin/wrk -t1 -c"$c" -d"${seconds}s" --latency "$url" >"$work/out"
      echo "$(to_ms "$(awk '$1 == "50%" {print $2}' "$work/out")") $(to_ms "$(awk '$1 == "99%" {print $2}' "$work/out")")" ;;
    wrk2)
      # A rate just above the closed loop's (c per delay), so it runs as a closed loop would.
      local rate=$(( c * 1000 / delay_ms * 11 / 10 ))
      "$wrk2" -t1 -c"$c" -d"${seconds}s" -R"$rate" --u_latency "$url" >"$work/out"
      # The uncorrected distribution: the time each request took from its actual send.
      echo "$(to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "50.000%" {print $2; exit}' "$work/out")") $(to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "99.000%" {print $2; exit}' "$work/out")")" ;;
  esac
}

echo "fixed_delay_server: each answer ${delay_ms} ms after its request arrived; one client thread, ${seconds} s per run"
printf '%-10s %5s %12s %12s %16s\n' tool c "p50-D (ms)" "p99-D (ms)" "server late p50"
for c in $levels; do
  for tool in $tools; do
    start_server
    read -r p50 p99 < <(run "$tool" "$c")
    stop_server
    late=$(awk '/^answered/ {print $4}' "$work/server.out")
    printf '%-10s %5s %12.3f %12.3f %13s us\n' "$tool" "$c" \
      "$(awk -v v="$p50" -v d="$delay_ms" 'BEGIN {print v - d}')" \
      "$(awk -v v="$p99" -v d="$delay_ms" 'BEGIN {print v - d}')" "$late"
  done
done
