#!/usr/bin/env bash
# Fixed rate beside wrk2: loadscope-cli http -R and wrk2 -R (built by
# /work/shared/peers/build-peers.sh) at the same rates against
# fixed_delay_server, which answers every request exactly DELAY_US (or
# DELAY_MS) after it arrived. Prints each tool's corrected p50 minus the true
# delay (what the client's timers and loop add: wrk2's timers have millisecond
# granularity) and its CPU per request (user + sys of the tool's process over the
# requests the server answered), its voluntary context switches per request
# (how often it slept and was woken), and Loadscope's ratios to wrk2's. Goal:
# Loadscope's p50 - D no larger than wrk2's, its CPU per request no more. Loadscope
# runs both ways: each request at its own time (default) and with --timer-slack
# SLACK_US (1000), where the requests due within 1 ms share a wake-up, as wrk2's
# millisecond timers bunch them (each early one's latency is from its send).
#
# Where the scheduler puts the client and the server moves each tool's CPU per
# request by up to twice on a virtual machine: a client on the server's CPU
# sends and reads without waking the other CPU, one on the other CPU pays for
# that wake-up (an interrupt between CPUs) and for its own CPU's wake from idle
# at each request. Left free, the two tools end up placed differently (a
# client woken by the server's answers is drawn to its CPU; one woken by its
# own timer is not), so each round runs in three placements (PLACEMENTS): free,
# both on CPU 0 (same), server on CPU 0 and client on CPU 1 (apart), each tool
# pinned whole with taskset. Rounds alternate which tool goes first; the
# summary gives each ratio's median over the rounds and its range.
#
# Each tool also runs SHORT_SECONDS (1) at the same rate: the difference of the
# two runs' CPU over the difference of their answered requests is the steady
# CPU per request, what a request costs once the process is up, with start-up
# and exit (dynamic linking, reading the report out) taken out. Both figures
# are printed; at 1000/s a run of a few seconds is a few thousand requests, so
# a few milliseconds of start-up move the whole-process figure by microseconds.
#
#   tests/bench/rate_vs_wrk2.sh [path/to/loadscope-cli]
#   RATES="1000 4000" CONNECTIONS=16 SECONDS_PER_RUN=10 ROUNDS=3 tests/bench/rate_vs_wrk2.sh  # the defaults
#   PLACEMENTS="same apart" RATES=1000 tests/bench/rate_vs_wrk2.sh
#   DELAY_US=2500 RATES=1000 tests/bench/rate_vs_wrk2.sh   # answers off the schedule's 1 ms grid
#
# Only 127.0.0.1 is loaded; each server is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
server=${SERVER:-$(dirname "$cli")/../../tests/bench/fixed_delay_server}
# In microseconds as DELAY_US, or whole milliseconds as DELAY_MS (default 2).
case ${DELAY_US:-0}${DELAY_MS:-0} in
  *[!0-9]*) echo "rate_vs_wrk2.sh: DELAY_US and DELAY_MS take a whole number" >&2; exit 2 ;;
esac
delay_us=${DELAY_US:-$((${DELAY_MS:-2} * 1000))}
delay_ms=$(awk -v us="$delay_us" 'BEGIN {print us / 1000}')
seconds=${SECONDS_PER_RUN:-10}
rates=${RATES:-"1000 4000"}
connections=${CONNECTIONS:-16}
rounds=${ROUNDS:-3} # the summary's medians need a few; 3 rounds of both rates take about 13 minutes
wrk2=${WRK2:-/tmp/loadscope-peers/bin/wrk2}
# Loadscope runs twice: each request at its own time (the default), and with
# requests due within SLACK_US of each other sharing a wake-up (--timer-slack):
# by default 1000, the granularity of wrk2's timers.
slack_us=${SLACK_US:-1000}
short_seconds=${SHORT_SECONDS:-1}

bench_require "build the release preset; /work/shared/peers/build-peers.sh builds wrk2" "$cli" "$server" "$wrk2" /usr/bin/python3 /usr/bin/taskset
bench_raise_fd_limit
bench_setup
placements=$(bench_placements "${PLACEMENTS:-"free same apart"}")

# run TOOL RATE SECONDS PLACEMENT -> "p50_ms cpu_seconds answered voluntary_switches"
# (p50 n/a when the tool printed none)
run() {
  local tool=$1 rate=$2 seconds=$3 url p50 server_pin client_pin
  read -ra server_pin <<<"$(bench_pin "$4" server)"
  read -ra client_pin <<<"$(bench_pin "$4" client)"
  bench_start_fixed_delay_server "$server" "$delay_us" "${server_pin[@]}"
  url="http://127.0.0.1:$port/"
  case $tool in
    loadscope*)
      local slack=()
      [ "$tool" = loadscope-slack ] && slack=(--timer-slack "$slack_us")
      bench_run "$tool" "${client_pin[@]}" "$cli" http -k -c "$connections" --threads 1 -R "$rate" "${slack[@]}" -t "$seconds" -q --json - "$url"
      p50=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency_ms"]["p50"])' "$work/out") ;;
    wrk2)
      bench_run wrk2 "${client_pin[@]}" "$wrk2" -t1 -c"$connections" -d"${seconds}s" -R"$rate" --latency "$url"
      # The first distribution wrk2 prints is the corrected ("Recorded") one.
      p50=$(bench_to_ms "$(awk '$1 == "50.000%" {print $2; exit}' "$work/out")") ;;
  esac
  bench_stop "$server_pid"
  echo "${p50:-n/a} $(bench_cpu_seconds) $(awk '/^answered/ {print $2}' "$work/server.out") $(bench_voluntary_switches)"
}

echo "fixed_delay_server: each answer ${delay_ms} ms after its request arrived; -c ${connections}, one client thread, ${seconds} s per run; loadscope-slack: --timer-slack ${slack_us}"
printf '%-9s %-16s %7s %6s %12s %16s %16s %10s %18s\n' placement tool rate round "p50-D (ms)" "CPU us/request" "steady us/req" answered "switches/request"
# One line per compared round: "placement rate tool err_ratio cpu_ratio steady_ratio".
: >"$work/ratios"
skipped=()
for rate in $rates; do
  for round in $(seq "$rounds"); do
    order="loadscope loadscope-slack wrk2"
    [ $((round % 2)) = 0 ] && order="wrk2 loadscope-slack loadscope"
    for placement in $placements; do
      declare -A err cpu steady short
      for tool in $order; do
        read -r p50 seconds_cpu answered switches < <(run "$tool" "$rate" "$seconds" "$placement")
        read -r _ short_cpu short_answered _ < <(run "$tool" "$rate" "$short_seconds" "$placement")
        err[$tool]=$(awk -v v="$p50" -v d="$delay_ms" 'BEGIN {if (v == "n/a") print v; else printf "%.3f", v - d}')
        cpu[$tool]=$(awk -v c="$seconds_cpu" -v n="$answered" 'BEGIN {printf "%.2f", (n > 0 ? c * 1e6 / n : 0)}')
        steady[$tool]=$(awk -v c="$seconds_cpu" -v n="$answered" -v cs="$short_cpu" -v ns="$short_answered" \
          'BEGIN {printf "%.2f", (n > ns ? (c - cs) * 1e6 / (n - ns) : 0)}')
        # A tool that answered less than the rate offered is not compared at
        # the same rate: fewer wake-ups a second cost less each (wrk2 has
        # been seen sending a whole second less of a 6 s run).
        short[$tool]=$(awk -v n="$answered" -v r="$rate" -v s="$seconds" 'BEGIN {print (n < 0.97 * r * s ? 1 : 0)}')
        printf '%-9s %-16s %7s %6s %12s %16s %16s %10s %18s\n' "$placement" "$tool" "$rate" "$round" "${err[$tool]}" \
          "${cpu[$tool]}" "${steady[$tool]}" "$answered" \
          "$(awk -v s="$switches" -v n="$answered" 'BEGIN {printf "%.2f", (n > 0 ? s / n : 0)}')"
      done
      for tool in loadscope loadscope-slack; do
        if [ "${short[$tool]}" = 1 ] || [ "${short[wrk2]}" = 1 ]; then
          skipped+=("$placement rate $rate round $round: $tool against wrk2 not compared: one of them answered under 97 % of rate x ${seconds} s")
          continue
        fi
        echo "$placement $rate $tool $(bench_ratio "${err[$tool]}" "${err[wrk2]}") $(bench_ratio "${cpu[$tool]}" "${cpu[wrk2]}") $(bench_ratio "${steady[$tool]}" "${steady[wrk2]}")" >>"$work/ratios"
      done
      unset err cpu steady short
    done
  done
done
[ ${#skipped[@]} = 0 ] || printf '%s\n' "${skipped[@]}"
echo "ratios to wrk2, median over the rounds compared (range):"
printf '%-9s %7s %-16s %22s %22s %22s\n' placement rate tool "(p50-D)" "CPU/request" "steady CPU/request"
# Per placement, rate and tool: each ratio's median and range over its rounds
# (a ratio that was n/a, to a wrk2 figure that was not positive, is left out).
cut -d' ' -f1-3 "$work/ratios" | sort -u -k1,1 -k2,2n -k3,3 | while read -r placement rate tool; do
  line=$(printf '%-9s %7s %-16s' "$placement" "$rate" "$tool")
  for column in 4 5 6; do
    read -r median low high < <(awk -v p="$placement" -v r="$rate" -v t="$tool" -v k="$column" \
      '$1 == p && $2 == r && $3 == t {print $k}' "$work/ratios" | bench_median_range)
    cell=n/a
    [ "$median" = n/a ] || cell="$median ($low-$high)"
    line+=$(printf ' %22s' "$cell")
  done
  echo "$line"
done
