#!/usr/bin/env bash
# Fixed rate beside wrk2: loadscope-cli http -R and wrk2 -R (built by
# /work/shared/peers/build-peers.sh) at the same rates against
# fixed_delay_server, which answers every request exactly DELAY_MS after it
# arrived. Prints each tool's corrected p50 minus the true delay (what the
# client's timers and loop add: wrk2's timers have millisecond granularity)
# and its CPU per request (user + sys of the tool's process over the
# requests the server answered), and Loadscope's ratios to wrk2's. Goal:
# Loadscope's p50 - D no larger than wrk2's, its CPU per request no more.
#
#   tests/bench/rate_vs_wrk2.sh [path/to/loadscope-cli]
#   RATES="1000 4000" CONNECTIONS=16 SECONDS_PER_RUN=10 ROUNDS=1 tests/bench/rate_vs_wrk2.sh
#
# Only 127.0.0.1 is loaded; each server is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../../build/release/app/cli/loadscope-cli}
server=${SERVER:-$(dirname "$cli")/../../tests/bench/fixed_delay_server}
delay_ms=${DELAY_MS:-2}
seconds=${SECONDS_PER_RUN:-10}
rates=${RATES:-"1000 4000"}
connections=${CONNECTIONS:-16}
rounds=${ROUNDS:-1}
wrk2=${WRK2:-/tmp/loadscope-peers/bin/wrk2}

for tool in "$cli" "$server" "$wrk2" /usr/bin/time; do
  [ -x "$tool" ] || { echo "missing $tool (build the release preset; /work/shared/peers/build-peers.sh builds wrk2)" >&2; exit 1; }
done
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

start_server() {
  rm -f "$work/server.out"
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

# to_ms VALUE-WITH-UNIT (wrk2's "2.05ms", "812.00us", "1.20s") -> milliseconds
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); print v + 0 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 }
    else print v + 0 }'
}

# run TOOL RATE: prints "p50_ms cpu_seconds answered"
run() {
  local tool=$1 rate=$2 url p50
  start_server
  url="http://127.0.0.1:$port/"
  case $tool in
    loadscope)
      /usr/bin/time -f "%U %S" -o "$work/cpu" \
        "$cli" http -k -c "$connections" --threads 1 -R "$rate" -t "$seconds" -q --json - "$url" >"$work/out"
      p50=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency_ms"]["p50"])' "$work/out") ;;
    wrk2)
      /usr/bin/time -f "%U %S" -o "$work/cpu" \
        "$wrk2" -t1 -c"$connections" -d"${seconds}s" -R"$rate" --latency "$url" >"$work/out"
      # The first distribution wrk2 prints is the corrected ("Recorded") one.
      p50=$(to_ms "$(awk '$1 == "50.000%" {print $2; exit}' "$work/out")") ;;
  esac
  stop_server
  local answered cpu
  answered=$(awk '/^answered/ {print $2}' "$work/server.out")
  cpu=$(awk '{print $1 + $2}' "$work/cpu")
  echo "$p50 $cpu $answered"
}

echo "fixed_delay_server: each answer ${delay_ms} ms after its request arrived; -c ${connections}, one client thread, ${seconds} s per run"
printf '%-10s %7s %6s %12s %16s %10s\n' tool rate round "p50-D (ms)" "CPU us/request" answered
summary=()
for rate in $rates; do
  for round in $(seq "$rounds"); do
    declare -A err cpu
    for tool in loadscope wrk2; do
      read -r p50 seconds_cpu answered < <(run "$tool" "$rate")
      err[$tool]=$(awk -v v="$p50" -v d="$delay_ms" 'BEGIN {printf "%.3f", v - d}')
      cpu[$tool]=$(awk -v c="$seconds_cpu" -v n="$answered" 'BEGIN {printf "%.2f", (n > 0 ? c * 1e6 / n : 0)}')
      printf '%-10s %7s %6s %12s %16s %10s\n' "$tool" "$rate" "$round" "${err[$tool]}" "${cpu[$tool]}" "$answered"
    done
    summary+=("$(awk -v r="$rate" -v n="$round" -v le="${err[loadscope]}" -v we="${err[wrk2]}" \
      -v lc="${cpu[loadscope]}" -v wc="${cpu[wrk2]}" 'BEGIN {
        printf "rate %s round %s: (p50-D) loadscope/wrk2 = %s", r, n, (we > 0 ? sprintf("%.2f", le / we) : "n/a");
        printf ", CPU/request loadscope/wrk2 = %s", (wc > 0 ? sprintf("%.2f", lc / wc) : "n/a") }')")
    unset err cpu
  done
done
printf '%s\n' "${summary[@]}"
