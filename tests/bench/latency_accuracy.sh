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
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
server=${SERVER:-$(dirname "$cli")/../../tests/bench/fixed_delay_server}
delay_ms=${DELAY_MS:-2}
seconds=${SECONDS_PER_RUN:-5}
levels=${LEVELS:-"1 16 64 256"}
wrk2=${WRK2:-/tmp/loadscope-peers/bin/wrk2}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/bin/wrk "$cli" "$server"
tools="loadscope wrk"
if [ -x "$wrk2" ]; then
  tools="$tools wrk2"
else
  echo "note: wrk2 not built ($wrk2 missing; /work/shared/peers/build-peers.sh builds it): skipped"
fi
bench_raise_fd_limit

bench_setup

# run TOOL C: prints "p50_ms p99_ms"
run() {
  local tool=$1 c=$2 url="http://127.0.0.1:$port/"
  case $tool in
    loadscope)
      "$cli" http -k -c "$c" --threads 1 --warmup 1 -t "$seconds" -q --json - "$url" >"$work/out"
      python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency_ms"]; print(l["p50"], l["p99"])' "$work/out" ;;
    wrk)
      /usr/bin/wrk -t1 -c"$c" -d"${seconds}s" --latency "$url" >"$work/out"
      echo "$(bench_to_ms "$(awk '$1 == "50%" {print $2}' "$work/out")") $(bench_to_ms "$(awk '$1 == "99%" {print $2}' "$work/out")")" ;;
    wrk2)
      # A rate just above the closed loop's (c per delay), so it runs as a closed loop would.
      local rate=$(( c * 1000 / delay_ms * 11 / 10 ))
      "$wrk2" -t1 -c"$c" -d"${seconds}s" -R"$rate" --u_latency "$url" >"$work/out"
      # The uncorrected distribution: the time each request took from its actual send.
      echo "$(bench_to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "50.000%" {print $2; exit}' "$work/out")") $(bench_to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "99.000%" {print $2; exit}' "$work/out")")" ;;
  esac
}

echo "fixed_delay_server: each answer ${delay_ms} ms after its request arrived; one client thread, ${seconds} s per run"
printf '%-10s %5s %12s %12s %16s\n' tool c "p50-D (ms)" "p99-D (ms)" "server late p50"
for c in $levels; do
  for tool in $tools; do
    bench_start_fixed_delay_server "$server" $((delay_ms * 1000))
    read -r p50 p99 < <(run "$tool" "$c")
    bench_stop "$server_pid"
    late=$(awk '/^answered/ {print $4}' "$work/server.out")
    printf '%-10s %5s %12.3f %12.3f %13s us\n' "$tool" "$c" \
      "$(awk -v v="$p50" -v d="$delay_ms" 'BEGIN {print v - d}')" \
      "$(awk -v v="$p99" -v d="$delay_ms" 'BEGIN {print v - d}')" "$late"
  done
done
