#!/usr/bin/env bash
# loadscope-cli http --h2 against h2load (Debian's nghttp2-client) on the same
# nginx, same connections, streams per connection and threads, alternating
# rounds: h2c by prior knowledge and h2 over TLS (ALPN). Prints requests/s
# and client CPU per request (user + sys of the tool's process), then the
# ratios to h2load.
#
#   tests/bench/h2_vs_h2load.sh [path/to/loadscope-cli]
#   ROUNDS=3 REQUESTS=200000 CONNECTIONS=10 STREAMS=10 THREADS=2 tests/bench/h2_vs_h2load.sh
#
# h2load is given OpenSSL's default TLS 1.3 suites, so that both negotiate the
# same cipher (bench_common.sh, H2LOAD_TLS13_CIPHERS).
#
# Only 127.0.0.1 is loaded; nginx is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-3}
requests=${REQUESTS:-200000}
connections=${CONNECTIONS:-10}
streams=${STREAMS:-10}
threads=${THREADS:-2}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/sbin/nginx /usr/bin/h2load /usr/bin/openssl /usr/bin/python3 "$cli"
bench_raise_fd_limit
bench_setup
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
# One nginx, two servers: h2c on $port, and h2 over TLS on $port_tls, a second
# server block closed by the one bench_start_nginx writes.
port_tls=$(bench_free_port)
bench_start_nginx http2 "}
  server { listen 127.0.0.1:$port_tls http2 ssl backlog=16384; root $work/www;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
bench_wait_port "$port_tls"


h2c="http://127.0.0.1:$port/"
h2="https://127.0.0.1:$port_tls/"
echo "nginx 1 worker, 4897-byte page, $connections connections x $streams streams, $threads threads, $requests requests x $rounds rounds"
for round in $(seq "$rounds"); do
  bench_h2load_measure h2load_h2c /usr/bin/h2load -t"$threads" -c"$connections" -m"$streams" -n"$requests" "$h2c"
  bench_h2load_measure loadscope_h2c "$cli" http --h2 --max-concurrent-streams "$streams" -c "$connections" \
    --threads "$threads" -n "$requests" -q --json - "$h2c"
  bench_h2load_measure h2load_h2 /usr/bin/h2load "${bench_h2load_tls[@]}" -t"$threads" -c"$connections" -m"$streams" -n"$requests" "$h2"
  bench_h2load_measure loadscope_h2 "$cli" http --h2 --insecure --max-concurrent-streams "$streams" \
    -c "$connections" --threads "$threads" -n "$requests" -q --json - "$h2"
done

printf '\n%-34s %11s %13s %18s %17s %6s %6s\n' run 'h2load rps' 'loadscope rps' 'h2load CPU us/req' 'loadscope us/req' 'rps x' 'cpu x'
bench_h2load_report "h2c, c=$connections m=$streams" _h2c
bench_h2load_report "h2 over TLS, c=$connections m=$streams" _h2
