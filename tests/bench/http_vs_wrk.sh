#!/usr/bin/env bash
# loadscope-cli http against wrk and ab on the same nginx, same connections
# and threads, alternating rounds. Prints requests/s, client CPU per request
# (user + sys of the tool's process) and peak RSS, then the ratios to wrk.
#
#   tests/bench/http_vs_wrk.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=5 CONNECTIONS=100 THREADS=2 tests/bench/http_vs_wrk.sh
#
# Only 127.0.0.1 is loaded; nginx is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../../build/release/app/cli/loadscope-cli}
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-5}
connections=${CONNECTIONS:-100}
threads=${THREADS:-2}
ab_requests=${AB_REQUESTS:-200000}
big_connections=${BIG_CONNECTIONS:-10000}

for tool in /usr/sbin/nginx /usr/bin/wrk /usr/bin/ab /usr/bin/time "$cli"; do
  [ -x "$tool" ] || { echo "missing $tool (scripts/install-deps.sh test; build the release preset)" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

work=$(mktemp -d)
nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
  || echo $((20000 + RANDOM % 20000)))
mkdir -p "$work/www"
head -c 4897 /dev/zero | tr '\0' 'x' >"$work/www/index.html"
cat >"$work/nginx.conf" <<EOF
daemon off; master_process off; worker_rlimit_nofile 65536;
error_log $work/error.log; pid $work/nginx.pid;
events { worker_connections 30000; }
http { access_log off; keepalive_requests 100000000;
  server { listen 127.0.0.1:$port backlog=16384; root $work/www; } }
EOF
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
url="http://127.0.0.1:$port/"

# measure NAME COMMAND...: runs it under GNU time; leaves "requests rps cpu_s rss_kib" in $work/NAME.row
measure() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$name failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  local requests rps
  case $name in
    wrk*) requests=$(awk '/requests in/ {print $1}' "$work/out")
          rps=$(awk '/Requests\/sec/ {print $2}' "$work/out") ;;
    ab*) requests=$(awk '/Complete requests/ {print $3}' "$work/out")
         rps=$(awk '/Requests per second/ {print $4}' "$work/out") ;;
    *) requests=$(awk -F'[:,]' '/"complete"/ {gsub(/ /,"",$2); print $2}' "$work/out")
       rps=$(awk -F'[:,]' '/"requests_per_second"/ {gsub(/ /,"",$2); print $2}' "$work/out") ;;
  esac
  read -r user sys rss <"$work/time"
  echo "$requests $rps $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $rss" >>"$work/$name.rows"
}

echo "nginx 1 worker, 4897-byte page, $connections connections, $threads threads, ${seconds}s x $rounds rounds"
for round in $(seq "$rounds"); do
  measure wrk /usr/bin/wrk -t"$threads" -c"$connections" -d"${seconds}s" "$url"
  measure loadscope "$cli" http -k -c "$connections" --threads "$threads" -t "$seconds" -q --json - "$url"
done
measure ab /usr/bin/ab -q -k -c "$connections" -n "$ab_requests" "$url"

summary() { # NAME -> "rps cpu_us_per_request rss_mib" (means over rounds, peak RSS)
  awk '{req += $1; rps += $2; cpu += $3; if ($4 > rss) rss = $4; n++}
       END {printf "%.0f %.2f %.1f\n", rps / n, cpu * 1e6 / req, rss / 1024}' "$work/$1.rows"
}
read -r wrk_rps wrk_cpu wrk_rss <<<"$(summary wrk)"
printf '\n%-10s %12s %16s %12s %10s %10s\n' tool requests/s 'CPU us/request' 'peak RSS' 'rps/wrk' 'cpu/wrk'
for tool in wrk loadscope ab; do
  read -r rps cpu rss <<<"$(summary "$tool")"
  printf '%-10s %12s %16s %9s MiB %10s %10s\n' "$tool" "$rps" "$cpu" "$rss" \
    "$(awk -v a="$rps" -v b="$wrk_rps" 'BEGIN {printf "%.2f", a / b}')" \
    "$(awk -v a="$cpu" -v b="$wrk_cpu" 'BEGIN {printf "%.2f", a / b}')"
done

echo
echo "loadscope -c $big_connections (keep-alive, ${seconds}s):"
measure big "$cli" http -k -c "$big_connections" --threads "$threads" -t "$seconds" -q --json - "$url"
read -r req rps cpu rss <"$work/big.rows"
failed=$(awk -F'[:,]' '/"failed"/ {gsub(/ /,"",$2); print $2}' "$work/out")
printf 'requests/s %s, failed %s, peak RSS %.1f MiB (goal <= 64 MiB)\n' "$rps" "$failed" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')"
