#!/usr/bin/env bash
# loadscope-cli http against ab fetching one large file without keep-alive: by
# default -c 10 -n 1000 of a 1,935,301-byte file (SIZE=, REQUESTS=), from one
# nginx worker that sends it with sendfile as Debian's nginx.conf does
# (SENDFILE=off: read and written from user space). Rounds alternate which
# tool goes first. Prints, per tool, the medians over ROUNDS of:
#   requests/s;
#   the client's CPU per request (user + sys of the whole process), and its
#   user and system parts;
#   nginx's CPU per request;
#   the machine's softirq per request (/proc/stat);
#   client + nginx per request: the measure that holds the server's work
#   equal. On loopback the kernel moves the bytes of a response in softirq,
#   run in whichever task is current when the work is raised: nginx's
#   transmit runs in the client's thread when the client's window update (an
#   ACK sent by its read) lets nginx's socket send more, and the client's
#   receive runs in nginx's thread when nginx's send delivers the bytes. This
#   kernel charges those ticks to the task they interrupt, so the same
#   transfer's work moves between client and server with their timing; their
#   sum does not.
# Then the per-round ratios (loadscope / ab) and, where perf can profile
# (cpu-clock with call chains), one profiled run per tool, not counted above,
# that says where the client's CPU went: its own work (user space, and the
# system calls' own cost: entry, epoll, connect, close), the copies of the
# received bytes to user space, and softirq: network processing run while the
# client was current. perf stat counts the system calls and reads per request
# (the read sizes). The last line says which of those the difference is.
#
# What it found (tests/bench/README.md, 2026-12-06): not the client's own
# work, which was already a third below ab's (a seventh of its system calls),
# but the copies of the bodies into a 64 KiB buffer that overflows L1 where
# ab's 8 KiB one does not, and softirq: nginx's transmit, let out by the
# client's window updates, run and charged in the client's thread. Body bytes
# are now taken with recv(MSG_TRUNC), uncopied; the copies went, and with
# fewer, larger reads the softirq charged to the client no longer exceeds ab's.
#
#   tests/bench/large_body_vs_ab.sh [path/to/loadscope-cli]
#   ROUNDS=7 PLACEMENT=apart tests/bench/large_body_vs_ab.sh build/ci/bin/loadscope-cli
#   SIZE=18874368 REQUESTS=100 tests/bench/large_body_vs_ab.sh   # the 18 MB file
#
# PLACEMENT: free (default), same (client and nginx on CPU 0) or apart (nginx
# on CPU 0, the client on CPU 1). Only 127.0.0.1 is loaded; nginx is started
# here and stopped on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_common.sh
. "$here/bench_common.sh"
cli=${1:-$bench_release_cli}
rounds=${ROUNDS:-5}
size=${SIZE:-1935301}
requests=${REQUESTS:-1000}
placement=$(bench_placements "${PLACEMENT:-free}")
placement=${placement// /}
[ -n "$placement" ] || placement=free
case ${SENDFILE:-on} in
  on) directives="sendfile on; tcp_nopush on;" ;;
  off) directives="sendfile off;" ;;
  *) echo "$(basename "$0"): SENDFILE is on or off" >&2; exit 2 ;;
esac

bench_require "apt-get install nginx-light apache2-utils python3; build loadscope-cli" \
  /usr/sbin/nginx /usr/bin/ab /usr/bin/python3 "$cli"
bench_setup
bench_start_nginx "" "$directives"
head -c "$size" /dev/urandom >"$work/www/large.bin"
url="http://127.0.0.1:$port/large.bin"
server_pin=$(bench_pin "$placement" server)
[ -z "$server_pin" ] || taskset -pc "${server_pin##* }" "$nginx_pid" >/dev/null
read -r -a client_pin <<<"$(bench_pin "$placement" client)"
hz=$(getconf CLK_TCK)
softirq_ticks() { awk '/^cpu / {print $8}' /proc/stat; }

# measure TOOL: one run; appends "rps user_s sys_s nginx_s softirq_s" to $work/TOOL.rows.
measure() {
  local tool=$1 before_server before_softirq
  before_server=$(bench_server_cpu_seconds "$nginx_pid")
  before_softirq=$(softirq_ticks)
  case $tool in
    ab) bench_run ab "${client_pin[@]}" /usr/bin/ab -q -c 10 -n "$requests" "$url" ;;
    loadscope) bench_run loadscope "${client_pin[@]}" "$cli" http -c 10 -n "$requests" -q --json - "$url" ;;
  esac
  local after_server after_softirq rps failed
  after_server=$(bench_server_cpu_seconds "$nginx_pid")
  after_softirq=$(softirq_ticks)
  case $tool in
    ab) rps=$(awk '/^Requests per second/ {print $4}' "$work/out")
        failed=$(awk '/^Failed requests/ {print $3}' "$work/out") ;;
    *) rps=$(bench_json_number requests_per_second)
       failed=$(bench_json_number failed) ;;
  esac
  [ "$failed" = 0 ] || { echo "$tool: $failed failed requests" >&2; exit 1; }
  read -r user sys _ <"$work/time"
  echo "$rps $user $sys $(awk -v a="$before_server" -v b="$after_server" 'BEGIN {print b - a}') \
$(awk -v a="$before_softirq" -v b="$after_softirq" -v hz="$hz" 'BEGIN {print (b - a) / hz}')" \
    >>"$work/$tool.rows"
}

median_of() { # TOOL AWK-EXPRESSION -> median over the rounds, in us per request for CPU figures
  awk "{print $2}" "$work/$1.rows" | bench_median_range 2 | cut -d' ' -f1
}

echo "nginx ($directives) serving $size bytes on 127.0.0.1:$port; -c 10 -n $requests, no keep-alive; placement $placement; $rounds rounds"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: figures move with the load)"
order="ab loadscope"
for _ in $(seq "$rounds"); do
  for tool in $order; do measure "$tool"; done
  order=$(echo "$order" | awk '{print $2, $1}')
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"

us=$((1000000 / requests)) # seconds per run -> us per request
echo
printf '%-10s %9s %10s %8s %8s %10s %10s %14s\n' tool "req/s" "client us" user sys "nginx us" "softirq us" "client+nginx"
for tool in ab loadscope; do
  # shellcheck disable=SC2016 # awk fields
  printf '%-10s %9s %10s %8s %8s %10s %10s %14s\n' "$tool" "$(median_of "$tool" '$1')" \
    "$(median_of "$tool" "(\$2 + \$3) * $us")" "$(median_of "$tool" "\$2 * $us")" \
    "$(median_of "$tool" "\$3 * $us")" "$(median_of "$tool" "\$4 * $us")" \
    "$(median_of "$tool" "\$5 * $us")" "$(median_of "$tool" "(\$2 + \$3 + \$4) * $us")"
done
# shellcheck disable=SC2016 # awk fields
read -r client_median client_low client_high <<<"$(bench_round_ratios loadscope ab '($2 + $3)')"
# shellcheck disable=SC2016
read -r both_median both_low both_high <<<"$(bench_round_ratios loadscope ab '($2 + $3 + $4)')"
# shellcheck disable=SC2016
read -r rate_median _ _ <<<"$(bench_round_ratios loadscope ab '$1')"
echo "loadscope / ab by round: client CPU per request median $client_median ($client_low-$client_high)," \
  "client + nginx $both_median ($both_low-$both_high), req/s $rate_median"
echo "goal, client + nginx CPU per request <= ab's (median of the rounds):" \
  "$(awk -v a="$both_median" 'BEGIN {print (a <= 1) ? "met" : "NOT met"}');" \
  "client alone: $(awk -v a="$client_median" 'BEGIN {print (a <= 1) ? "met" : "NOT met"}')"
echo "  rounds ab (req/s user_s sys_s nginx_s softirq_s): $(paste -sd';' "$work/ab.rows")"
echo "  rounds loadscope: $(paste -sd';' "$work/loadscope.rows")"

# Where the client's CPU went, from one profiled run per tool.
if ! command -v perf >/dev/null 2>&1 ||
   ! perf record -q -e cpu-clock -o "$work/probe.data" -- true >/dev/null 2>&1; then
  echo "perf cannot profile here: no breakdown"
  exit 0
fi
profile() { # TOOL -> "samples user own copy softirq" (per request, us) and "syscalls reads" per request
  local tool=$1 command
  case $tool in
    ab) command=(/usr/bin/ab -q -c 10 -n "$requests" "$url") ;;
    loadscope) command=("$cli" http -c 10 -n "$requests" -q "$url") ;;
  esac
  perf record -q -e cpu-clock -F 4999 -g -o "$work/$tool.data" -- "${client_pin[@]}" "${command[@]}" >/dev/null 2>&1
  perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_recvfrom \
    -o "$work/$tool.stat" -- "${client_pin[@]}" "${command[@]}" >/dev/null 2>&1
  perf script -i "$work/$tool.data" -F ip,sym 2>/dev/null | python3 -c '
import sys
# One sample a block: its call chain, the leaf first.
counts = {"user": 0, "own": 0, "copy": 0, "softirq": 0}
softirq = {"handle_softirqs", "__do_softirq", "do_softirq", "do_softirq.part.0", "__irq_exit_rcu", "irq_exit_rcu"}
copies = {"_copy_to_iter", "copy_user_enhanced_fast_string", "copy_user_generic_string", "rep_movs_alternative", "copy_user_generic_unrolled"}
for block in sys.stdin.read().split("\n\n"):
    chain = [line.split(None, 1)[1].strip() if len(line.split(None, 1)) > 1 else "" for line in block.strip().splitlines()]
    if not chain:
        continue
    if softirq & set(chain):
        counts["softirq"] += 1
    elif chain[0] in copies:
        counts["copy"] += 1
    elif any(s.startswith(("entry_SYSCALL", "do_syscall_64", "syscall_exit", "asm_")) for s in chain):
        counts["own"] += 1
    else:
        counts["user"] += 1
us = 1e6 / 4999 / int(sys.argv[1])
print(sum(counts.values()) * us, counts["user"] * us, counts["own"] * us, counts["copy"] * us, counts["softirq"] * us)
' "$requests"
  awk -F, -v n="$requests" '$3 == "raw_syscalls:sys_enter" {s = $1} $3 ~ /sys_enter_(read|recvfrom)$/ {r += $1}
    END {printf "%.1f %.1f\n", s / n, r / n}' "$work/$tool.stat"
}
echo
echo "where the client's CPU went (one profiled run each, us per request; perf's own cost included):"
printf '%-10s %9s %8s %14s %8s %9s %12s %12s\n' tool profiled user "own syscalls" copies softirq "syscalls/req" "reads/req"
for tool in ab loadscope; do
  { read -r total user own copy soft; read -r syscalls reads; } < <(profile "$tool")
  printf '%-10s %9.1f %8.1f %14.1f %8.1f %9.1f %12s %12s\n' "$tool" "$total" "$user" "$own" "$copy" "$soft" "$syscalls" "$reads"
  echo "$total $user $own $copy $soft" >"$work/$tool.split"
done
read -r a_total a_user a_own a_copy a_soft <"$work/ab.split"
read -r l_total l_user l_own l_copy l_soft <"$work/loadscope.split"
awk -v at="$a_total" -v lt="$l_total" -v ao="$a_user" -v lo="$l_user" -v as="$a_own" -v ls="$l_own" \
    -v ac="$a_copy" -v lc="$l_copy" -v aq="$a_soft" -v lq="$l_soft" 'BEGIN {
  own = (lo + ls) - (ao + as); copy = lc - ac; soft = lq - aq
  printf "difference loadscope - ab: %+.1f us per request = own work %+.1f, copies %+.1f, softirq %+.1f\n", lt - at, own, copy, soft
  if (lt - at <= 0) print "verdict: loadscope takes less CPU per request than ab in this run"
  else if (soft >= own && soft >= copy) print "verdict: the difference is mostly softirq charged to the client (network work of the transfer, run while it was current), not its own work"
  else if (own >= copy) print "verdict: the difference is mostly the client'"'"'s own work (user space and system calls)"
  else print "verdict: the difference is mostly copies of the received bytes"
}'
