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
seconds=${SECONDS_PER_RUN:-5}
connections=${CONNECTIONS:-100}
threads=${THREADS:-2}
close_connections=${CLOSE_CONNECTIONS:-20}
# h2load -D never ends when the server closes each connection: that run is by count.
close_requests=${CLOSE_REQUESTS:-20000}

bench_require "scripts/install-deps.sh test; build the release preset" /usr/sbin/nginx /usr/bin/h2load /usr/bin/openssl /usr/bin/python3 "$cli"
bench_raise_fd_limit
bench_setup
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
bench_start_nginx ssl "ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:tls:10m;"
url="https://127.0.0.1:$port/"


echo "nginx 1 worker, TLS, 4897-byte page, $threads threads, ${seconds}s x $rounds rounds"
for round in $(seq "$rounds"); do
  bench_h2load_measure h2load_ka /usr/bin/h2load --h1 "${bench_h2load_tls[@]}" -t"$threads" -c"$connections" -D"$seconds" "$url"
  bench_h2load_measure loadscope_ka "$cli" http -k --insecure -c "$connections" --threads "$threads" -t "$seconds" -q --json - "$url"
  bench_h2load_measure h2load_close /usr/bin/h2load --h1 "${bench_h2load_tls[@]}" -H 'Connection: close' -t"$threads" -c"$close_connections" -n"$close_requests" "$url"
  bench_h2load_measure loadscope_close "$cli" http --insecure -c "$close_connections" --threads "$threads" -n "$close_requests" -q --json - "$url"
done

printf '\n%-34s %11s %13s %18s %17s %6s %6s\n' run 'h2load rps' 'loadscope rps' 'h2load CPU us/req' 'loadscope us/req' 'rps x' 'cpu x'
bench_h2load_report "keep-alive, c=$connections" _ka
bench_h2load_report "a connection per request, c=$close_connections" _close
