#!/usr/bin/env bash
# loadscope-cli memcache against memcached at -c 50 -t 2 and -c 100 -t 1
# (clients per thread x threads, as memtier_benchmark counts them), next to
# memaslap (libmemcached-tools' event-driven load generator; memtier_benchmark
# is not packaged in Debian 12) with the same threads and connections, in
# alternating rounds. Prints ops/s and client CPU per operation (user + sys of
# the whole process, from GNU time) and the memtier reference figure of the
# issue beside ours.
#
#   tests/bench/memcache_bench.sh [path/to/loadscope-cli]
#   ROUNDS=3 SECONDS_PER_RUN=5 MEMCACHED_THREADS=1 tests/bench/memcache_bench.sh
#
# Only 127.0.0.1 is loaded; memcached is started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-5}
memcached_threads=${MEMCACHED_THREADS:-1}
memtier_reference_us=7.5 # memtier_benchmark -c 100 -t 1 on this machine, quoted by the issue

bench_require "apt-get install memcached time; build loadscope-cli" /usr/bin/memcached /usr/bin/time "$cli"
memaslap=$(command -v memcaslap || command -v memaslap || true)
[ -n "$memaslap" ] || echo "memaslap not found (apt-get install libmemcached-tools): loadscope only" >&2
bench_raise_fd_limit

bench_setup
port=$(bench_free_port)
bench_start /usr/bin/memcached -l 127.0.0.1 -p "$port" -U 0 -m 1024 -c 8192 -t "$memcached_threads" -u "$(id -un)"
bench_wait_port "$port"

# memaslap's workload as close to memtier's defaults as it allows: 16-byte keys
# (its minimum; memtier's are about 15), 32-byte values, one set per nine gets.
cat >"$work/memaslap.cfg" <<CFG
key
16 16 1
value
32 32 1
cmd
0 0.1
1 0.9
CFG

# measure NAME ROWFILE COMMAND...: runs it under GNU time; appends "ops rate cpu_s" to ROWFILE.
measure() {
  local name=$1 rows=$2; shift 2
  bench_run "$name" "$@"
  local ops rate
  case $name in
    memaslap) ops=$(awk '/^Run time:/ {print $5}' "$work/out")
              rate=$(awk '/^Run time:/ {print $7}' "$work/out") ;;
    *) ops=$(bench_json_number complete)
       rate=$(bench_json_number ops_per_second) ;;
  esac
  echo "$ops $rate $(bench_cpu_seconds)" >>"$rows"
}

summary() { # ROWFILE -> "ops_per_s cpu_us_per_op"
  awk '{ops += $1; rate += $2; cpu += $3; n++}
       END {printf "%.0f %.2f\n", rate / n, cpu * 1e6 / ops}' "$1"
}

echo "memcached -t $memcached_threads on 127.0.0.1:$port; ${seconds}s x $rounds rounds per tool and setting"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  connections=$((clients * threads))
  for round in $(seq "$rounds"); do
    measure loadscope "$work/loadscope-$clients-$threads" \
      "$cli" memcache -c "$clients" -t "$threads" --test-time "$seconds" -q --json - "127.0.0.1:$port"
    if [ -n "$memaslap" ]; then
      measure memaslap "$work/memaslap-$clients-$threads" \
        "$memaslap" -s "127.0.0.1:$port" -T "$threads" -c "$connections" -t "${seconds}s" -F "$work/memaslap.cfg"
    fi
  done
done

echo
printf '%-10s %-12s %12s %16s %12s\n' tool setting "ops/s" "CPU us/op" "vs memaslap"
for setting in "50 2" "100 1"; do
  read -r clients threads <<<"$setting"
  read -r our_rate our_cpu <<<"$(summary "$work/loadscope-$clients-$threads")"
  if [ -n "$memaslap" ]; then
    read -r mas_rate mas_cpu <<<"$(summary "$work/memaslap-$clients-$threads")"
    printf '%-10s %-12s %12s %16s %12s\n' memaslap "-c$clients -t$threads" "$mas_rate" "$mas_cpu" ""
    ratio="$(bench_ratio "$our_cpu" "$mas_cpu")x CPU"
  else
    ratio=-
  fi
  printf '%-10s %-12s %12s %16s %12s\n' loadscope "-c$clients -t$threads" "$our_rate" "$our_cpu" "$ratio"
  if [ "$setting" = "100 1" ]; then
    verdict=$(awk -v a="$our_cpu" -v b="$memtier_reference_us" 'BEGIN {print (a <= b) ? "met" : "NOT met"}')
    echo "goal: client CPU per op at most memtier's ~${memtier_reference_us} us at -c100 -t1 (issue's reference): $verdict (${our_cpu} us)"
  fi
done
echo "(memaslap's gets mostly hit keys it set; loadscope runs memtier's defaults, random keys over 10M, so its gets mostly miss)"
