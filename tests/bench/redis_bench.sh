#!/usr/bin/env bash
# loadscope-cli memcache -P redis against memtier_benchmark -P redis on one
# redis-server at -c 50 -t 2 and -c 100 -t 1 (clients per thread x threads, as
# memtier counts them), both with the same workload: set:get 1:10, random keys
# (R:R) over 1..10000000, 32-byte values, --test-time SECONDS. Each round runs
# both tools back to back, the one that goes first alternating from round to
# round, so that a busy neighbour weighs on both. Prints ops/s and client CPU
# per operation (user + sys of the whole client process, from bench_run) for
# each tool, the ratios of the means, and the median (min-max) of the
# per-round ratios (goal: loadscope's client CPU per op at most memtier's).
# redis-server's own CPU per op is printed beside them: Redis is
# single-threaded, so its rate is the server's, and a client that costs the
# server less per op shows here.
#
#   tests/bench/redis_bench.sh [path/to/loadscope-cli]
#   ROUNDS=5 SECONDS_PER_RUN=5 tests/bench/redis_bench.sh build/ci/bin/loadscope-cli
#   PROTOCOL=resp3 tests/bench/redis_bench.sh          # both tools with -P resp3
#
# memtier_benchmark comes from /work/shared/peers/build-peers.sh (MEMTIER=PATH
# for another build); when it is missing the script runs build-peers.sh, and if
# that fails it measures loadscope alone, saying so.
#
# Only 127.0.0.1 is loaded; redis-server is started here (no snapshot, no
# append-only file, in the script's scratch directory) and stopped on exit, and
# every client run is bounded by timeout(1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-5}
protocol=${PROTOCOL:-redis}
peers_script=/work/shared/peers/build-peers.sh
memtier=${MEMTIER:-/tmp/loadscope-peers/bin/memtier_benchmark}
limit=$((${seconds%.*} + 30)) # seconds any one client run may take before timeout stops it

case $protocol in
  redis|resp2|resp3) ;;
  *) echo "$(basename "$0"): PROTOCOL is redis, resp2 or resp3, not $protocol" >&2; exit 2 ;;
esac
bench_require "apt-get install redis-server python3; build loadscope-cli" /usr/bin/redis-server /usr/bin/python3 /usr/bin/timeout "$cli"
if [ ! -x "$memtier" ] && [ -z "${MEMTIER:-}" ] && [ -x "$peers_script" ]; then
  echo "memtier_benchmark not built: running $peers_script" >&2
  timeout 1800 "$peers_script" >&2 || echo "build-peers.sh failed" >&2
fi
if [ ! -x "$memtier" ]; then
  echo "memtier_benchmark not available at $memtier: skipping the peer, loadscope only" >&2
  memtier=
fi
bench_raise_fd_limit

bench_setup
port=$(bench_free_port)
bench_start /usr/bin/redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
  --daemonize no --dir "$work" --logfile "$work/redis.log" --maxclients 10000
redis_pid=$bench_pid
bench_wait_port "$port"

# The workload both tools are given explicitly (memtier's defaults, which are
# loadscope-cli memcache's defaults too).
workload=(--ratio=1:10 --key-pattern=R:R --key-minimum=1 --key-maximum=10000000 -d 32)

# measure NAME ROWFILE COMMAND...: runs it with bench_run, bounded by timeout;
# appends "ops rate cpu_s server_cpu_s" to ROWFILE.
measure() {
  local name=$1 rows=$2; shift 2
  local before
  before=$(bench_server_cpu_seconds "$redis_pid")
  bench_run "$name" timeout -k 5 "$limit" "$@"
  local served
  served=$(awk -v a="$before" -v b="$(bench_server_cpu_seconds "$redis_pid")" 'BEGIN {print b - a}')
  local ops rate
  case $name in
    memtier)
      # ALL STATS -> Totals in its JSON: Count and Ops/sec.
      ops=$(awk '/"Totals"/ {t = 1} t && /"Count"/ {gsub(/[^0-9]/, ""); print; exit}' "$work/memtier.json")
      rate=$(awk '/"Totals"/ {t = 1} t && /"Ops\/sec"/ {sub(/.*: */, ""); sub(/,.*/, ""); print; exit}' "$work/memtier.json") ;;
    *) ops=$(bench_json_number complete)
       rate=$(bench_json_number ops_per_second) ;;
  esac
  if [ -z "$ops" ] || [ -z "$rate" ]; then
    echo "$name: no figures in its output" >&2; exit 1
  fi
  echo "$ops $rate $(bench_cpu_seconds) $served" >>"$rows"
}

summary() { # ROWFILE -> "ops_per_s cpu_us_per_op server_us_per_op"
  awk '{ops += $1; rate += $2; cpu += $3; server += $4; n++}
       END {printf "%.0f %.2f %.2f\n", rate / n, cpu * 1e6 / ops, server * 1e6 / ops}' "$1"
}

run_loadscope() { # CLIENTS THREADS
  measure loadscope "$work/loadscope-$1-$2.rows" \
    "$cli" memcache -P "$protocol" -c "$1" -t "$2" "${workload[@]}" --test-time "$seconds" \
    -q --json - "127.0.0.1:$port"
}

run_memtier() { # CLIENTS THREADS
  rm -f "$work/memtier.json"
  measure memtier "$work/memtier-$1-$2.rows" \
    "$memtier" -s 127.0.0.1 -p "$port" -P "$protocol" -c "$1" -t "$2" \
    "${workload[@]}" --test-time "$seconds" --hide-histogram --json-out-file "$work/memtier.json"
}

echo "redis-server $(/usr/bin/redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$port, -P $protocol; ${seconds}s x $rounds rounds per tool and setting"
echo "workload: ${workload[*]}"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  for round in $(seq "$rounds"); do
    if [ -z "$memtier" ]; then
      run_loadscope "$clients" "$threads"
    elif [ $((round % 2)) = 1 ]; then
      run_loadscope "$clients" "$threads"
      run_memtier "$clients" "$threads"
    else
      run_memtier "$clients" "$threads"
      run_loadscope "$clients" "$threads"
    fi
  done
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo
printf '%-10s %-12s %12s %12s %15s %10s %10s\n' tool setting "ops/s" "CPU us/op" "redis us/op" "ops/s x" "CPU/op x"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  name=$clients-$threads
  read -r our_rate our_cpu our_server <<<"$(summary "$work/loadscope-$name.rows")"
  if [ -z "$memtier" ]; then
    printf '%-10s %-12s %12s %12s %15s %10s %10s\n' loadscope "-c$clients -t$threads" "$our_rate" "$our_cpu" "$our_server" - -
    continue
  fi
  read -r mt_rate mt_cpu mt_server <<<"$(summary "$work/memtier-$name.rows")"
  printf '%-10s %-12s %12s %12s %15s %10s %10s\n' memtier "-c$clients -t$threads" "$mt_rate" "$mt_cpu" "$mt_server" 1.00 1.00
  printf '%-10s %-12s %12s %12s %15s %10s %10s\n' loadscope "-c$clients -t$threads" "$our_rate" "$our_cpu" "$our_server" \
    "$(bench_ratio "$our_rate" "$mt_rate")" "$(bench_ratio "$our_cpu" "$mt_cpu")"
  # shellcheck disable=SC2016 # awk fields
  read -r cpu_median cpu_low cpu_high <<<"$(bench_round_ratios "loadscope-$name" "memtier-$name" '$3 / $1')"
  read -r rate_median rate_low rate_high <<<"$(bench_round_ratios "loadscope-$name" "memtier-$name")"
  echo "  by round, loadscope / memtier: CPU per op median $cpu_median ($cpu_low-$cpu_high)," \
    "ops/s median $rate_median ($rate_low-$rate_high)"
  verdict=$(awk -v a="$cpu_median" 'BEGIN {print (a <= 1) ? "met" : "NOT met"}')
  echo "  goal -c$clients -t$threads: loadscope CPU/op <= memtier's (median of the rounds): $verdict"
  echo "  rounds loadscope (ops ops/s cpu_s redis_cpu_s): $(paste -sd';' "$work/loadscope-$name.rows")"
  echo "  rounds memtier: $(paste -sd';' "$work/memtier-$name.rows")"
done
