# Sourced by the bench scripts (not run on its own): the parts they share.
# Each script sets -euo pipefail, sources this file, then calls bench_setup
# once for its scratch directory $work; every server started with bench_start
# is stopped, and $work removed, when the script exits.
# shellcheck shell=bash

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Where the release preset builds loadscope-cli: each script's default.
# shellcheck disable=SC2034
bench_release_cli=$bench_dir/../../build/release/bin/loadscope-cli

bench_pids=()

# bench_setup: makes $work and stops the servers and removes it on exit.
bench_setup() {
  work=$(mktemp -d)
  trap bench_cleanup EXIT
}

bench_cleanup() {
  local pid
  for pid in "${bench_pids[@]}"; do bench_stop "$pid"; done
  rm -rf "$work"
}

# bench_require HINT TOOL...: exits with one line naming the first TOOL that is
# not an executable, and HINT on how to get it.
bench_require() {
  local hint=$1 tool
  shift
  for tool in "$@"; do
    [ -x "$tool" ] || { echo "missing $tool ($hint)" >&2; exit 1; }
  done
}

# bench_raise_fd_limit: as many descriptors as the hard limit allows, up to
# 65536 (thousands of connections on each side).
bench_raise_fd_limit() {
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

# bench_start COMMAND...: starts COMMAND in the background (redirect the call
# to redirect its output) and leaves its pid in $bench_pid.
bench_start() {
  "$@" &
  bench_pid=$!
  bench_pids+=("$bench_pid")
}

# bench_stop PID: stops a process bench_start started and waits for it; an
# empty PID is none.
bench_stop() {
  [ -n "${1:-}" ] || return 0
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local kept=() pid
  for pid in "${bench_pids[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  bench_pids=("${kept[@]}")
}

# bench_free_port: prints a port no one listens on at the moment.
bench_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
    || echo $((20000 + RANDOM % 20000))
}

# bench_wait_port PORT: waits up to 5 s for 127.0.0.1:PORT to accept.
bench_wait_port() {
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
}

# bench_start_nginx [LISTEN_FLAGS [SERVER_DIRECTIVES]]: one nginx worker on a
# free port serving a 4897-byte page from $work/www; sets $port.
bench_start_nginx() {
  port=$(bench_free_port)
  mkdir -p "$work/www"
  head -c 4897 /dev/zero | tr '\0' 'x' >"$work/www/index.html"
  cat >"$work/nginx.conf" <<EOF
daemon off; master_process off; worker_rlimit_nofile 65536;
error_log $work/error.log; pid $work/nginx.pid;
events { worker_connections 30000; }
http { access_log off; keepalive_requests 100000000;
  server { listen 127.0.0.1:$port ${1:-} backlog=16384; root $work/www; ${2:-} } }
EOF
  bench_start /usr/sbin/nginx -p "$work" -c "$work/nginx.conf"
  nginx_pid=$bench_pid # master_process off: this process serves
  bench_wait_port "$port"
}

# bench_server_cpu_seconds PID: user + sys CPU seconds the process has used so
# far (/proc/PID/stat, in clock ticks).
bench_server_cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"
}

# bench_run_served NAME COMMAND...: bench_run, and sets bench_served_cpu to the
# CPU seconds nginx (bench_start_nginx) spent meanwhile: with its one worker
# saturated, the rate is the inverse of its CPU per request, so this says how
# much each client's traffic cost the server.
bench_run_served() {
  local before
  before=$(bench_server_cpu_seconds "$nginx_pid")
  bench_run "$@"
  bench_served_cpu=$(awk -v a="$before" -v b="$(bench_server_cpu_seconds "$nginx_pid")" 'BEGIN {print b - a}')
}

# bench_start_fixed_delay_server SERVER DELAY_US [PREFIX...]: SERVER
# (fixed_delay_server) on a free port, answering DELAY_US after each request,
# run under PREFIX when given (taskset -c 0); sets $server_pid and $port, and
# the server writes its report to $work/server.out.
bench_start_fixed_delay_server() {
  rm -f "$work/server.out" # before the new server writes it, so no old port is read
  bench_start "${@:3}" "$1" --delay-us "$2" >"$work/server.out"
  # shellcheck disable=SC2034 # the caller stops it
  server_pid=$bench_pid
  for _ in $(seq 50); do
    port=$(awk '/^port/ {print $2}' "$work/server.out" 2>/dev/null)
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "fixed_delay_server did not start" >&2
  exit 1
}

# bench_placements LIST: checks that LIST holds only free, same and apart,
# and prints it, apart left out on a machine with one CPU. Exits with one
# line for an unknown placement, before any run.
bench_placements() {
  local placement
  for placement in $1; do
    case $placement in
      free|same|apart) ;;
      *) echo "$(basename "$0"): unknown placement $placement (free, same, apart)" >&2; exit 2 ;;
    esac
  done
  if [ "$(nproc)" -lt 2 ]; then
    echo "one CPU: the apart placement is left out" >&2
    echo "${1//apart/}"
  else
    echo "$1"
  fi
}

# bench_pin PLACEMENT ROLE: the command prefix that places ROLE (server,
# client): free none, same both on CPU 0, apart the server on CPU 0 and the
# client on CPU 1.
bench_pin() {
  case $1/$2 in
    same/*|apart/server) echo taskset -c 0 ;;
    apart/client) echo taskset -c 1 ;;
  esac # free: none
}

# bench_run NAME COMMAND...: runs COMMAND under run_timed.py, its output in
# $work/out and $work/err and its "user sys peak_rss_kib voluntary_switches"
# in $work/time (CPU to the microsecond); when it fails, prints NAME and the
# end of its errors and exits.
bench_run() {
  local name=$1
  shift
  python3 "$bench_dir/run_timed.py" "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$name failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
}

# CPU seconds (user + sys), peak RSS in KiB and voluntary context switches
# (the process's waits, its threads together) of the last bench_run.
bench_cpu_seconds() { awk '{print $1 + $2}' "$work/time"; }
bench_peak_rss_kib() { awk '{print $3}' "$work/time"; }
bench_voluntary_switches() { awk '{print $4}' "$work/time"; }

# bench_json_number KEY: the number after "KEY": in loadscope-cli's --json
# output of the last bench_run.
bench_json_number() {
  awk -F'[:,]' -v key="\"$1\"" '$0 ~ key {gsub(/ /,"",$2); print $2}' "$work/out"
}

# bench_ratio A B: A / B to two places, n/a when B is not positive.
bench_ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else printf "n/a"}'
}

# bench_round_ratios A B [EXPR] -> "median min max" of EXPR over the rows of
# $work/A.rows against the same round's row of $work/B.rows (EXPR an awk
# expression of a row, $2 by default: the rate, in every script's rows). A
# shared machine moves a run's figures by 10-20 %, its neighbour's with it.
bench_round_ratios() {
  # shellcheck disable=SC2016 # an awk field, expanded by awk
  local expr=${3:-'$2'}
  paste -d' ' <(awk "{print $expr}" "$work/$1.rows") <(awk "{print $expr}" "$work/$2.rows") |
    awk '$2 > 0 {print $1 / $2}' | bench_median_range
}

# bench_median_range [PLACES]: "median min max", to PLACES (2) places, of the
# numbers on standard input, one a line; an "n/a" line (a figure a run did not
# give) is left out, and with no number left it prints "n/a n/a n/a".
bench_median_range() {
  { grep -v -x 'n/a' || true; } | sort -g |
    awk -v f="%.${1:-2}f" '{r[++n] = $1}
      END {if (!n) {print "n/a n/a n/a"; exit}
           m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
           printf f " " f " " f "\n", m, r[1], r[n]}'
}

# bench_to_ms VALUE-WITH-UNIT (wrk's and wrk2's "2.05ms", "812.00us", "1.20s")
# -> milliseconds; an empty VALUE (a report without the line) -> nothing
bench_to_ms() {
  [ -n "$1" ] || return 0 # no value: none (never 0)
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); print v + 0 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 }
    else print v + 0 }'
}

# The h2load comparisons (https_vs_h2load.sh, h2_vs_h2load.sh).
# bench_h2load_measure NAME COMMAND...: runs it with bench_run; appends
# "requests rps cpu_s server_cpu_s" to $work/NAME.rows (NAME h2load*: h2load's
# report; else loadscope-cli's JSON; server_cpu_s as bench_run_served).
bench_h2load_measure() {
  local name=$1; shift
  bench_run_served "$name" "$@"
  local requests rps
  case $name in
    h2load*) requests=$(awk '/^requests:/ {print $8}' "$work/out")
             rps=$(awk '/^finished in/ {gsub(/,/,""); print $4}' "$work/out") ;;
    *) requests=$(bench_json_number complete)
       rps=$(bench_json_number requests_per_second) ;;
  esac
  echo "$requests $rps $(bench_cpu_seconds) $bench_served_cpu" >>"$work/$name.rows"
  local cipher
  case $name in
    h2load*) cipher=$(awk '/^Cipher:/ {print $2}' "$work/out") ;;
    *) cipher=$(awk -F'"' '/"tls_cipher"/ {print $4}' "$work/out") ;;
  esac
  [ -z "$cipher" ] || echo "$cipher" >>"$work/$name.ciphers"
}

# The TLS 1.3 suites h2load is given: OpenSSL 3's default list, which
# loadscope-cli keeps. nginx takes the client's order, and h2load's own list
# puts TLS_AES_128_GCM_SHA256 first (loadscope-cli's negotiates
# TLS_AES_256_GCM_SHA384, whose SHA-384 key schedule and AES-256 cost more
# per handshake and per byte): with the same list both negotiate the same
# cipher, printed under each row. H2LOAD_TLS13_CIPHERS= (empty) keeps h2load's own.
bench_h2load_tls13=${H2LOAD_TLS13_CIPHERS-TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256}
bench_h2load_tls=() # h2load's arguments for it: "${bench_h2load_tls[@]}"
[ -z "$bench_h2load_tls13" ] || bench_h2load_tls=("--tls13-ciphers=$bench_h2load_tls13")

bench_h2load_summary() { # NAME -> "rps cpu_us_per_request server_us_per_request" (means over rounds)
  awk '{req += $1; rps += $2; cpu += $3; server += $4; n++}
       END {printf "%.0f %.2f %.2f\n", rps / n, cpu * 1e6 / req, server * 1e6 / req}' "$work/$1.rows"
}

bench_h2load_report() { # LABEL SUFFIX: a row of h2loadSUFFIX against loadscopeSUFFIX
  read -r h_rps h_cpu h_server <<<"$(bench_h2load_summary "h2load$2")"
  read -r l_rps l_cpu l_server <<<"$(bench_h2load_summary "loadscope$2")"
  read -r median low high <<<"$(bench_round_ratios "loadscope$2" "h2load$2")"
  printf '%-34s %11s %13s %18s %17s %6s %6s\n' "$1" "$h_rps" "$l_rps" "$h_cpu" "$l_cpu" \
    "$(bench_ratio "$l_rps" "$h_rps")" "$(bench_ratio "$l_cpu" "$h_cpu")"
  printf '  rps x by round: median %s (%s-%s); nginx CPU us/req: with h2load %s, with loadscope %s (x %s)\n' \
    "$median" "$low" "$high" "$h_server" "$l_server" "$(bench_ratio "$l_server" "$h_server")"
  if [ -f "$work/h2load$2.ciphers" ] || [ -f "$work/loadscope$2.ciphers" ]; then
    printf '  cipher: h2load %s, loadscope %s\n' \
      "$(sort -u "$work/h2load$2.ciphers" 2>/dev/null | paste -sd/)" \
      "$(sort -u "$work/loadscope$2.ciphers" 2>/dev/null | paste -sd/)"
  fi
}
