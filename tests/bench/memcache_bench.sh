#!/usr/bin/env bash
# loadscope-cli memcache against memtier_benchmark (-P memcache_text) on one
# memcached at -c 50 -t 2 and -c 100 -t 1 (clients per thread x threads, as
# memtier counts them), both with the same workload: set:get 1:10, random keys
# (R:R) over 1..10000000, 32-byte values, --test-time SECONDS; in alternating
# rounds. Prints ops/s and client CPU per operation (user + sys of the whole
# client process, from bench_run) for each tool, and loadscope's ratios to
# memtier (goal: client CPU per op at most memtier's).
#
#   tests/bench/memcache_bench.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=5 MEMCACHED_THREADS=1 tests/bench/memcache_bench.sh
#
# memtier_benchmark comes from /work/shared/peers/build-peers.sh (MEMTIER=PATH
# for another build); when it is missing the script runs build-peers.sh, and if
# that fails it measures loadscope alone, saying so. MEMASLAP=1 adds memaslap
# (libmemcached-tools, the stand-in used before memtier was available) as an
# extra column, with its own workload file (16-byte keys, 32-byte values, 1:9).
#
# Only 127.0.0.1 is loaded; memcached is started here and stopped on exit, and
# every client run is bounded by timeout(1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-5}
memcached_threads=${MEMCACHED_THREADS:-1}
peers_script=/work/shared/peers/build-peers.sh
memtier=${MEMTIER:-/tmp/loadscope-peers/bin/memtier_benchmark}
limit=$((${seconds%.*} + 30)) # seconds any one client run may take before timeout stops it

bench_require "apt-get install memcached python3; build loadscope-cli" /usr/bin/memcached /usr/bin/python3 /usr/bin/timeout "$cli"
if [ ! -x "$memtier" ] && [ -z "${MEMTIER:-}" ] && [ -x "$peers_script" ]; then
  echo "memtier_benchmark not built: running $peers_script" >&2
  timeout 1800 "$peers_script" >&2 || echo "build-peers.sh failed" >&2
fi
if [ ! -x "$memtier" ]; then
  echo "memtier_benchmark not available at $memtier: skipping the peer, loadscope only" >&2
  memtier=
fi
memaslap=
if [ "${MEMASLAP:-0}" = 1 ]; then
  memaslap=$(command -v memcaslap || command -v memaslap || true)
  [ -n "$memaslap" ] || echo "MEMASLAP=1 but memaslap not found (apt-get install libmemcached-tools): skipped" >&2
fi
bench_raise_fd_limit

bench_setup
port=$(bench_free_port)
bench_start /usr/bin/memcached -l 127.0.0.1 -p "$port" -U 0 -m 1024 -c 8192 -t "$memcached_threads" -u "$(id -un)"
bench_wait_port "$port"

# The workload both tools are given explicitly (memtier's defaults, which are
# loadscope-cli memcache's defaults too).
workload=(--ratio=1:10 --key-pattern=R:R --key-minimum=1 --key-maximum=10000000 -d 32)

cat >"$work/memaslap.cfg" <<CFG
key
16 16 1
value
32 32 1
cmd
0 0.1
1 0.9
CFG

# measure NAME ROWFILE COMMAND...: runs it with bench_run, bounded by timeout;
# appends "ops rate cpu_s" to ROWFILE.
measure() {
  local name=$1 rows=$2; shift 2
  bench_run "$name" timeout -k 5 "$limit" "$@"
  local ops rate
  case $name in
    memtier)
      # ALL STATS -> Totals in its JSON: Count, Ops/sec (the patched build's
      # Ops/sec; also checked against Count / --test-time below).
      ops=$(awk '/"Totals"/ {t = 1} t && /"Count"/ {gsub(/[^0-9]/, ""); print; exit}' "$work/memtier.json")
      rate=$(awk '/"Totals"/ {t = 1} t && /"Ops\/sec"/ {sub(/.*: */, ""); sub(/,.*/, ""); print; exit}' "$work/memtier.json") ;;
    memaslap)
      ops=$(awk '/^Run time:/ {print $5}' "$work/out")
      rate=$(awk '/^Run time:/ {print $7}' "$work/out") ;;
    *) ops=$(bench_json_number complete)
       rate=$(bench_json_number ops_per_second) ;;
  esac
  if [ -z "$ops" ] || [ -z "$rate" ]; then
    echo "$name: no figures in its output" >&2; exit 1
  fi
  echo "$ops $rate $(bench_cpu_seconds)" >>"$rows"
}

summary() { # ROWFILE -> "ops_per_s cpu_us_per_op ops_per_test_second"
  awk -v s="$seconds" '{ops += $1; rate += $2; cpu += $3; n++}
       END {printf "%.0f %.2f %.0f\n", rate / n, cpu * 1e6 / ops, ops / n / s}' "$1"
}

echo "memcached -t $memcached_threads on 127.0.0.1:$port; ${seconds}s x $rounds rounds per tool and setting"
echo "workload: ${workload[*]}"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  connections=$((clients * threads))
  for _ in $(seq "$rounds"); do
    measure loadscope "$work/loadscope-$clients-$threads" \
      "$cli" memcache -c "$clients" -t "$threads" "${workload[@]}" --test-time "$seconds" \
      -q --json - "127.0.0.1:$port"
    if [ -n "$memtier" ]; then
      rm -f "$work/memtier.json"
      measure memtier "$work/memtier-$clients-$threads" \
        "$memtier" -s 127.0.0.1 -p "$port" -P memcache_text -c "$clients" -t "$threads" \
        "${workload[@]}" --test-time "$seconds" --hide-histogram --json-out-file "$work/memtier.json"
    fi
    if [ -n "$memaslap" ]; then
      measure memaslap "$work/memaslap-$clients-$threads" \
        "$memaslap" -s "127.0.0.1:$port" -T "$threads" -c "$connections" -t "${seconds}s" -F "$work/memaslap.cfg"
    fi
  done
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo
printf '%-10s %-12s %12s %12s %12s %12s\n' tool setting "ops/s" "CPU us/op" "ops/s x" "CPU/op x"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  read -r our_rate our_cpu _ <<<"$(summary "$work/loadscope-$clients-$threads")"
  if [ -n "$memtier" ]; then
    read -r mt_rate mt_cpu mt_count_rate <<<"$(summary "$work/memtier-$clients-$threads")"
    printf '%-10s %-12s %12s %12s %12s %12s\n' memtier "-c$clients -t$threads" "$mt_rate" "$mt_cpu" 1.00 1.00
    printf '%-10s %-12s %12s %12s %12s %12s\n' loadscope "-c$clients -t$threads" "$our_rate" "$our_cpu" \
      "$(bench_ratio "$our_rate" "$mt_rate")" "$(bench_ratio "$our_cpu" "$mt_cpu")"
  else
    printf '%-10s %-12s %12s %12s %12s %12s\n' loadscope "-c$clients -t$threads" "$our_rate" "$our_cpu" - -
  fi
  if [ -n "$memaslap" ]; then
    read -r mas_rate mas_cpu _ <<<"$(summary "$work/memaslap-$clients-$threads")"
    printf '%-10s %-12s %12s %12s %12s %12s\n' memaslap "-c$clients -t$threads" "$mas_rate" "$mas_cpu" \
      "$(bench_ratio "$mas_rate" "${mt_rate:-0}")" "$(bench_ratio "$mas_cpu" "${mt_cpu:-0}")"
  fi
  if [ -n "$memtier" ]; then
    verdict=$(awk -v a="$our_cpu" -v b="$mt_cpu" 'BEGIN {print (a <= b) ? "met" : "NOT met"}')
    echo "  goal -c$clients -t$threads: loadscope CPU/op <= memtier's: $verdict;" \
      "memtier Count / --test-time = $mt_count_rate ops/s (its Ops/sec $mt_rate)"
  fi
  echo "  rounds loadscope (ops ops/s cpu_s): $(paste -sd';' "$work/loadscope-$clients-$threads")"
  [ -z "$memtier" ] || echo "  rounds memtier: $(paste -sd';' "$work/memtier-$clients-$threads")"
done
[ -z "$memaslap" ] || echo "(memaslap's gets mostly hit keys it set; the other two draw random keys over 10M, so their gets mostly miss)"
