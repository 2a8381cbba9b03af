#!/usr/bin/env bash
# The demo session (demo-proxy: the embedded HTTP server direct and through the
# userland TCP proxy) swept once, then where the CPU went per target and
# level: server CPU (the process listening on each target's port: the HTTP
# server, or the proxy), softirq and client CPU per request, other load and
# the noisy points, from the results CSV.
#
#   tests/bench/demo_cpu.sh [path/to/loadscope-cli]
#
# Only 127.0.0.1 is loaded; both servers are started here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
bench_require "build the release preset" "$cli"
bench_setup

bench_start "$cli" serve http --port 18080 --threads 1 >"$work/http.out" 2>"$work/http.err"
bench_start "$cli" serve proxy --port 18081 --to 127.0.0.1:18080 --threads 1 >"$work/proxy.out" 2>"$work/proxy.err"
for _ in $(seq 50); do
  grep -q listening "$work/http.out" && grep -q listening "$work/proxy.out" && break
  sleep 0.1
done

"$cli" sweep demo-proxy --out "$work/demo.loadscope" --csv "$work/demo.csv"
python3 - "$work/demo.csv" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
groups = defaultdict(list)
for r in rows:
    groups[(int(r['concurrency']), r['target'])].append(r)
def mean(rs, key):
    values = [float(r[key]) for r in rs if r[key] != '']
    return sum(values) / len(values) if values else float('nan')
print('\n%-5s %-16s %12s %12s %12s %10s %6s' % ('c', 'target', 'server µs/rq', 'softirq µs/rq',
                                               'client µs/rq', 'other %', 'noisy'))
for (c, target), rs in sorted(groups.items()):
    print('%-5d %-16s %12.2f %12.2f %12.2f %10.1f %3d/%d' % (
        c, target, mean(rs, 'server_cpu_us_per_request'), mean(rs, 'softirq_us_per_request'),
        mean(rs, 'client_cpu_us_per_request'), mean(rs, 'other_load_percent'),
        sum(r['noisy'] == 'true' for r in rs), len(rs)))
PY
