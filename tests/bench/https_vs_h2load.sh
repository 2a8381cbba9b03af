#!/usr/bin/env bash
# loadscope-cli http against h2load (Debian's nghttp2-client, --h1) on the
# same nginx over HTTPS, same connections and threads, alternating rounds:
# keep-alive (TLS on the data path only) and a connection per request
# (handshake-bound; both tools resume sessions). Prints requests/s and client
# CPU per request (user + sys of the tool's process), then the ratios to h2load.
#
#   tests/bench/https_vs_h2load.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=5 CONNECTIONS=100 THREADS=2 CLOSE_REQUESTS=20000 tests/bench/https_vs_h2load.sh
#
# Only 127.0.0.1 is loaded; nginx is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../../build/release/app/cli/loadscope-cli}
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-5}
connections=${CONNECTIONS:-100}
threads=${THREADS:-2}
close_connections=${CLOSE_CONNECTIONS:-20}
# h2load -D never ends when the server closes each connection: that run is by count.
close_requests=${CLOSE_REQUESTS:-20000}

for tool in /usr/sbin/nginx /usr/bin/h2load /usr/bin/openssl /usr/bin/time "$cli"; do
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
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
cat >"$work/nginx.conf" <<EOF
daemon off; master_process off; worker_rlimit_nofile 65536;
error_log $work/error.log; pid $work/nginx.pid;
events { worker_connections 30000; }
http { access_log off; keepalive_requests 100000000;
  server { listen 127.0.0.1:$port ssl backlog=16384; root $work/www;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:tls:10m; } }
EOF
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
url="https://127.0.0.1:$port/"

# measure NAME COMMAND...: runs it under GNU time; appends "requests rps cpu_s" to $work/NAME.rows
measure() {
  local name=$1; shift
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$name failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  local requests rps
  case $name in
    h2load*) requests=$(awk '/^requests:/ {print $8}' "$work/out")
             rps=$(awk '/^finished in/ {gsub(/,/,""); print $4}' "$work/out") ;;
    *) requests=$(awk -F'[:,]' '/"complete"/ {gsub(/ /,"",$2); print $2}' "$work/out")
       rps=$(awk -F'[:,]' '/"requests_per_second"/ {gsub(/ /,"",$2); print $2}' "$work/out") ;;
  esac
  read -r user sys <"$work/time"
  echo "$requests $rps $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" >>"$work/$name.rows"
}

summary() { # NAME -> "rps cpu_us_per_request" (means over rounds)
  awk '{req += $1; rps += $2; cpu += $3; n++}
       END {printf "%.0f %.2f\n", rps / n, cpu * 1e6 / req}' "$work/$1.rows"
}

report() { # LABEL SUFFIX
  read -r h_rps h_cpu <<<"$(summary "h2load$2")"
  read -r l_rps l_cpu <<<"$(summary "loadscope$2")"
  printf '%-34s %11s %13s %18s %17s %6s %6s\n' "$1" "$h_rps" "$l_rps" "$h_cpu" "$l_cpu" \
    "$(awk -v a="$l_rps" -v b="$h_rps" 'BEGIN {printf "%.2f", a / b}')" \
    "$(awk -v a="$l_cpu" -v b="$h_cpu" 'BEGIN {printf "%.2f", a / b}')"
}

echo "nginx 1 worker, TLS, 4897-byte page, $threads threads, ${seconds}s x $rounds rounds"
for round in $(seq "$rounds"); do
  measure h2load_ka /usr/bin/h2load --h1 -t"$threads" -c"$connections" -D"$seconds" "$url"
  measure loadscope_ka "$cli" http -k --insecure -c "$connections" --threads "$threads" -t "$seconds" -q --json - "$url"
  measure h2load_close /usr/bin/h2load --h1 -H 'Connection: close' -t"$threads" -c"$close_connections" -n"$close_requests" "$url"
  measure loadscope_close "$cli" http --insecure -c "$close_connections" --threads "$threads" -n "$close_requests" -q --json - "$url"
done

printf '\n%-34s %11s %13s %18s %17s %6s %6s\n' run 'h2load rps' 'loadscope rps' 'h2load CPU us/req' 'loadscope us/req' 'rps x' 'cpu x'
report "keep-alive, c=$connections" _ka
report "a connection per request, c=$close_connections" _close
