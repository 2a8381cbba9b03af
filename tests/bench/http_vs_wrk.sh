#!/usr/bin/env bash
# loadscope-cli http against wrk and ab on the same nginx, same connections
# and threads, alternating rounds. Prints requests/s, client CPU per request
# (user + sys of the tool's process) and peak RSS, then the ratios to wrk.
# "unpaused" is loadscope-cli with --no-wake-coalescing: waiting at once, as
# wrk does, it shows what the pause before each wait spares nginx.
#
#   tests/bench/http_vs_wrk.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=5 CONNECTIONS=100 THREADS=2 tests/bench/http_vs_wrk.sh
#
# Only 127.0.0.1 is loaded; nginx is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-5}
connections=${CONNECTIONS:-100}
threads=${THREADS:-2}
ab_requests=${AB_REQUESTS:-200000}
big_connections=${BIG_CONNECTIONS:-10000}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/sbin/nginx /usr/bin/wrk /usr/bin/ab /usr/bin/python3 "$cli"
bench_raise_fd_limit
bench_setup
bench_start_nginx "" ""
url="http://127.0.0.1:$port/"

# measure NAME COMMAND...: runs it with bench_run; appends
# "requests rps cpu_s rss_kib server_cpu_s" to $work/NAME.rows (server_cpu_s:
# nginx's CPU meanwhile, bench_run_served)
measure() {
  local name=$1; shift
  bench_run_served "$name" "$@"
  local requests rps
  case $name in
    wrk*) requests=$(awk '/requests in/ {print $1}' "$work/out")
          rps=$(awk '/Requests\/sec/ {print $2}' "$work/out") ;;
    ab*) requests=$(awk '/Complete requests/ {print $3}' "$work/out")
         rps=$(awk '/Requests per second/ {print $4}' "$work/out") ;;
    *) requests=$(bench_json_number complete)
       rps=$(bench_json_number requests_per_second) ;;
  esac
  echo "$requests $rps $(bench_cpu_seconds) $(bench_peak_rss_kib) $bench_served_cpu" >>"$work/$name.rows"
}

echo "nginx 1 worker, 4897-byte page, $connections connections, $threads threads, ${seconds}s x $rounds rounds"
for round in $(seq "$rounds"); do
  measure wrk /usr/bin/wrk -t"$threads" -c"$connections" -d"${seconds}s" "$url"
  measure loadscope "$cli" http -k -c "$connections" --threads "$threads" -t "$seconds" -q --json - "$url"
  measure unpaused "$cli" http -k -c "$connections" --threads "$threads" -t "$seconds" --no-wake-coalescing -q --json - "$url"
done
measure ab /usr/bin/ab -q -k -c "$connections" -n "$ab_requests" "$url"

summary() { # NAME -> "rps cpu_us_per_request rss_mib server_us_per_request" (means over rounds, peak RSS)
  awk '{req += $1; rps += $2; cpu += $3; if ($4 > rss) rss = $4; server += $5; n++}
       END {printf "%.0f %.2f %.1f %.2f\n", rps / n, cpu * 1e6 / req, rss / 1024, server * 1e6 / req}' "$work/$1.rows"
}
read -r wrk_rps wrk_cpu wrk_rss _ <<<"$(summary wrk)"
printf '\n%-10s %12s %16s %12s %10s %10s %18s\n' tool requests/s 'CPU us/request' 'peak RSS' 'rps/wrk' 'cpu/wrk' 'nginx us/request'
for tool in wrk loadscope unpaused ab; do
  read -r rps cpu rss server <<<"$(summary "$tool")"
  printf '%-10s %12s %16s %9s MiB %10s %10s %18s\n' "$tool" "$rps" "$cpu" "$rss" \
    "$(bench_ratio "$rps" "$wrk_rps")" "$(bench_ratio "$cpu" "$wrk_cpu")" "$server"
done
read -r rps_median rps_low rps_high <<<"$(bench_round_ratios loadscope wrk)"
read -r cpu_median cpu_low cpu_high <<<"$(bench_round_ratios loadscope wrk '$3 / $1')"
printf 'loadscope by round: rps/wrk median %s (%s-%s), cpu/wrk median %s (%s-%s)\n' \
  "$rps_median" "$rps_low" "$rps_high" "$cpu_median" "$cpu_low" "$cpu_high"

echo
echo "loadscope -c $big_connections (keep-alive, ${seconds}s):"
measure big "$cli" http -k -c "$big_connections" --threads "$threads" -t "$seconds" -q --json - "$url"
read -r req rps cpu rss _ <"$work/big.rows"
failed=$(bench_json_number failed)
printf 'requests/s %s, failed %s, peak RSS %.1f MiB (goal <= 64 MiB)\n' "$rps" "$failed" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')"
