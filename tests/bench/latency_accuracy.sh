#!/usr/bin/env bash
# How exact each tool's latency is: loadscope-cli http, wrk and (when
# /work/shared/peers/build-peers.sh built it) wrk2 against fixed_delay_server,
# which answers every request exactly DELAY_MS after it arrived, at
# c = 1, 16, 64, 256 on one thread. Prints each tool's p50 and p99 minus the
# true delay, and how late the server's own answers went out in that run
# (its timer's lateness, part of every tool's figure alike). Goal: Loadscope's
# error no larger than wrk's.
#
# Where the scheduler puts the client beside the server moves every tool's
# figures by more than their differences (at c = 64 the same tool's p50 - D
# was 0.15 ms in one run and 0.6 ms in the next, the server's timer late by
# 50 us or by 130 us), so each round runs in the placements PLACEMENTS: free,
# both on CPU 0 (same), server on CPU 0 and client on CPU 1 (apart), each
# process pinned whole with taskset. Rounds alternate which tool goes first;
# the summary gives each tool's median over the rounds per placement and
# level, and Loadscope's against wrk's.
#
#   tests/bench/latency_accuracy.sh [path/to/loadscope-cli]
#   DELAY_MS=2 SECONDS_PER_RUN=5 LEVELS="1 16 64 256" ROUNDS=3 tests/bench/latency_accuracy.sh  # the defaults
#   PLACEMENTS="free apart" LEVELS=64 tests/bench/latency_accuracy.sh
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
rounds=${ROUNDS:-3}
wrk2=${WRK2:-/tmp/loadscope-peers/bin/wrk2}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/bin/wrk /usr/bin/taskset /usr/bin/python3 "$cli" "$server"
placements=$(bench_placements "${PLACEMENTS:-"free same apart"}")
tools="loadscope wrk"
if [ -x "$wrk2" ]; then
  tools="$tools wrk2"
else
  echo "note: wrk2 not built ($wrk2 missing; /work/shared/peers/build-peers.sh builds it): skipped"
fi
bench_raise_fd_limit

bench_setup

# run TOOL C PLACEMENT: prints "p50_ms p99_ms server_late_p50_us" (n/a for a
# figure the tool did not print)
run() {
  local tool=$1 c=$2 url server_pin client_pin p50 p99
  read -ra server_pin <<<"$(bench_pin "$3" server)"
  read -ra client_pin <<<"$(bench_pin "$3" client)"
  bench_start_fixed_delay_server "$server" $((delay_ms * 1000)) "${server_pin[@]}"
  url="http://127.0.0.1:$port/"
  case $tool in
    loadscope)
      "${client_pin[@]}" "$cli" http -k -c "$c" --threads 1 --warmup 1 -t "$seconds" -q --json - "$url" >"$work/out"
      read -r p50 p99 < <(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency_ms"]; print(l["p50"], l["p99"])' "$work/out") ;;
    wrk)
      "${client_pin[@]}" /usr/bin/wrk -t1 -c"$c" -d"${seconds}s" --latency "$url" >"$work/out"
      p50=$(bench_to_ms "$(awk '$1 == "50%" {print $2}' "$work/out")")
      p99=$(bench_to_ms "$(awk '$1 == "99%" {print $2}' "$work/out")") ;;
    wrk2)
      # A rate just above the closed loop's (c per delay), so it runs as a closed loop would.
      local rate=$(( c * 1000 / delay_ms * 11 / 10 ))
      "${client_pin[@]}" "$wrk2" -t1 -c"$c" -d"${seconds}s" -R"$rate" --u_latency "$url" >"$work/out"
      # The uncorrected distribution: the time each request took from its actual send.
      p50=$(bench_to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "50.000%" {print $2; exit}' "$work/out")")
      p99=$(bench_to_ms "$(awk '/Uncorrected Latency/ {u = 1} u && $1 == "99.000%" {print $2; exit}' "$work/out")") ;;
  esac
  bench_stop "$server_pid"
  echo "${p50:-n/a} ${p99:-n/a} $(awk '/^answered/ {print $4}' "$work/server.out")"
}

echo "fixed_delay_server: each answer ${delay_ms} ms after its request arrived; one client thread, ${seconds} s per run"
printf '%-9s %-10s %5s %6s %12s %12s %16s\n' placement tool c round "p50-D (ms)" "p99-D (ms)" "server late p50"
# One line per run: "placement c tool p50_error p99_error".
: >"$work/errors"
for c in $levels; do
  for round in $(seq "$rounds"); do
    order=$tools
    [ $((round % 2)) = 0 ] && order=$(tr ' ' '\n' <<<"$tools" | tac | tr '\n' ' ')
    for placement in $placements; do
      for tool in $order; do
        read -r p50 p99 late < <(run "$tool" "$c" "$placement")
        # A tool that printed no distribution (wrk2 in a run too short for it) has no figure.
        read -r e50 e99 <<<"$(awk -v a="$p50" -v b="$p99" -v d="$delay_ms" \
          'BEGIN {if (a == "n/a" || b == "n/a") print "n/a n/a"; else printf "%.3f %.3f", a - d, b - d}')"
        printf '%-9s %-10s %5s %6s %12s %12s %13s us\n' "$placement" "$tool" "$c" "$round" "$e50" "$e99" "$late"
        echo "$placement $c $tool $e50 $e99" >>"$work/errors"
      done
    done
  done
done

# median PLACEMENT C TOOL COLUMN -> the median of that column over the rounds
median() {
  awk -v p="$1" -v c="$2" -v t="$3" -v k="$4" '$1 == p && $2 == c && $3 == t {print $k}' "$work/errors" |
    bench_median_range 3 | cut -d' ' -f1
}
echo
echo "medians over $rounds rounds (p50-D, p99-D in ms); loadscope/wrk: the ratio of the medians"
printf '%-9s %5s' placement c
for tool in $tools; do printf ' %17s' "$tool"; done
printf ' %17s\n' "loadscope/wrk"
for placement in $placements; do
  for c in $levels; do
    printf '%-9s %5s' "$placement" "$c"
    for tool in $tools; do printf ' %17s' "$(median "$placement" "$c" "$tool" 4) $(median "$placement" "$c" "$tool" 5)"; done
    printf ' %17s\n' "$(bench_ratio "$(median "$placement" "$c" loadscope 4)" "$(median "$placement" "$c" wrk 4)") $(bench_ratio "$(median "$placement" "$c" loadscope 5)" "$(median "$placement" "$c" wrk 5)")"
  done
done
