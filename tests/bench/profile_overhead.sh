#!/usr/bin/env bash
# What the CPU profile costs: loadscope-cli with and without --profile against
# the same nginx (one worker, kept alive, c=100, 2 threads) and against the
# echo server (tcp-rr, one connection: a run bound by latency), alternating
# which goes first in each round. Prints requests/s, the client's CPU per
# request as Loadscope reports it (its load threads over the measured window,
# `client_cpu_s`: where the kernel's sampling of them lands), the whole
# process's (user + sys: the sampler thread, and after the window the reading
# of /proc/kallsyms and the attribution, included) and the profile's own
# figures, then the ratios on/off round by round and their median: the goal is
# requests/s within 3 % and client CPU within 5 %.
#
#   tests/bench/profile_overhead.sh [path/to/loadscope-cli]
#   ROUNDS=5 SECONDS_PER_RUN=5 tests/bench/profile_overhead.sh
#
# Needs root (or kernel.perf_event_paranoid <= 0) for the profile. Only
# 127.0.0.1 is loaded; nginx and the echo server are started here and stopped
# on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-5}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/sbin/nginx /usr/bin/python3 "$cli"
bench_raise_fd_limit
bench_setup
bench_start_nginx "" ""
url="http://127.0.0.1:$port/"
echo_port=$(bench_free_port)
bench_start "$cli" serve echo --port "$echo_port" --threads 1 >"$work/echo.out" 2>"$work/echo.err"
bench_wait_port "$echo_port"

# Refused here: say why, and measure nothing.
"$cli" tcp-rr -n 1 --profile -q --json "$work/probe.json" "127.0.0.1:$echo_port" 2>"$work/probe.err" >/dev/null || true
if grep -q "no CPU profile" "$work/probe.err"; then
  echo "$(basename "$0"): $(grep "no CPU profile" "$work/probe.err")" >&2
  exit 1
fi

# measure NAME COMMAND...: appends "complete rps process_cpu_s samples lost own_us client_cpu_s"
# to $work/NAME.rows.
measure() {
  local name=$1; shift
  bench_run "$name" "$@"
  python3 - "$work/out" "$(bench_cpu_seconds)" >>"$work/$name.rows" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rate = r.get('requests_per_second', r.get('transactions_per_second', 0))
p = r.get('cpu_profile', {})
print(r['complete'], rate, sys.argv[2], p.get('samples', 0), p.get('lost_samples', 0),
      p.get('own_us_per_request', 0), r['client_cpu_s'])
PY
}

http=("$cli" http -k -c 100 --threads 2 -t "$seconds" -q --json - "$url")
rr=("$cli" tcp-rr -c 1 -l "$seconds" -q --json - "127.0.0.1:$echo_port")

echo "nginx 1 worker, 4897-byte page, c=100, 2 threads; tcp-rr c=1 against the echo server; ${seconds}s x $rounds rounds"
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    measure http_off "${http[@]}"; measure http_on "${http[@]}" --profile
    measure rr_off "${rr[@]}"; measure rr_on "${rr[@]}" --profile
  else
    measure http_on "${http[@]}" --profile; measure http_off "${http[@]}"
    measure rr_on "${rr[@]}" --profile; measure rr_off "${rr[@]}"
  fi
done

summary() { # NAME -> "rps client_us_per_request process_us_per_request samples lost own_us"
  awk '{req += $1; rps += $2; cpu += $3; samples += $4; lost += $5; own += $6; client += $7; n++}
       END {printf "%.0f %.2f %.2f %.0f %.0f %.3f\n", rps / n, client * 1e6 / req, cpu * 1e6 / req,
            samples / n, lost, own / n}' "$work/$1.rows"
}
printf '\n%-10s %12s %14s %15s %12s %6s %14s\n' run requests/s 'client us/req' 'process us/req' \
  'samples/run' lost 'own us/req'
for name in http_off http_on rr_off rr_on; do
  read -r rps client cpu samples lost own <<<"$(summary "$name")"
  printf '%-10s %12s %14s %15s %12s %6s %14s\n' "$name" "$rps" "$client" "$cpu" "$samples" "$lost" "$own"
done
echo
for load in http rr; do
  read -r rps_median rps_low rps_high <<<"$(bench_round_ratios "${load}_on" "${load}_off")"
  read -r client_median client_low client_high <<<"$(bench_round_ratios "${load}_on" "${load}_off" '$7 / $1')"
  read -r cpu_median cpu_low cpu_high <<<"$(bench_round_ratios "${load}_on" "${load}_off" '$3 / $1')"
  printf '%-4s on/off by round: requests/s %s (%s-%s), client CPU/request %s (%s-%s), process CPU/request %s (%s-%s)\n' \
    "$load" "$rps_median" "$rps_low" "$rps_high" "$client_median" "$client_low" "$client_high" \
    "$cpu_median" "$cpu_low" "$cpu_high"
done
echo "(medians over the rounds, range in brackets) goal: requests/s on/off >= 0.97, client CPU per request on/off <= 1.05"
