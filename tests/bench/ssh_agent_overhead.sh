#!/usr/bin/env bash
# One load agent over SSH against the same point in-process (and through the
# agent as a plain child process), in one run: agent_overhead --ssh, against
# a test sshd this script starts on 127.0.0.1 at a free port (Debian's
# openssh-server, a host key and a user key made for the run, its
# privilege-separation directory on a tmpfs in a mount namespace of its own;
# never the machine's ssh service). Root, as the test sshd logs its user in.
#   tests/bench/ssh_agent_overhead.sh [agent_overhead options...]
#   PLACEMENT=free tests/bench/ssh_agent_overhead.sh ...
# Goal: the agent over ssh within 2 % of in-process.
# On two CPUs or more the server's loop goes on CPU 1 and every way's engine
# workers on CPU 0 (agent_overhead --server-cpu 1 --client-cpu 0), the same
# placement for all three ways: left to the scheduler, the pair shared one CPU
# in some rounds and not in others, and on a busy machine single rounds moved
# by up to a half (2026-12-06, load average 7-13: free, the agent's rounds
# 0.62-1.92 of in-process; pinned, 0.74-1.15; see tests/bench/README.md).
# PLACEMENT=free leaves it to the scheduler, as do --server-cpu/--client-cpu
# given here.
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
cli=${CLI:-$bench_release_cli}
bench=${AGENT_OVERHEAD:-$bench_dir/../../build/release/tests/bench/agent_overhead}
bench_require "build the release preset" "$cli" "$bench"
bench_require "scripts/install-deps.sh test" /usr/sbin/sshd "$(command -v ssh-keygen)"
[ "$(id -u)" -eq 0 ] || { echo "ssh_agent_overhead.sh: run as root (the test sshd logs root in)" >&2; exit 1; }
bench_setup
ssh-keygen -q -t ed25519 -N '' -C loadscope-bench -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -C loadscope-bench -f "$work/user_key"
cp "$work/user_key.pub" "$work/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/sshd_config" <<CONF
ListenAddress 127.0.0.1:$port
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
LogLevel ERROR
CONF
echo "[127.0.0.1]:$port $(cat "$work/host_key.pub")" >"$work/known_hosts"
cat >"$work/ssh_config" <<CONF
Host bench
  HostName 127.0.0.1
  Port $port
  User root
  IdentityFile $work/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $work/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
CONF
bench_start unshare -m --propagation private -- sh -c \
  'mount -t tmpfs -o mode=755 none /run && mkdir -m 755 /run/sshd && exec /usr/sbin/sshd -D -e -f "$0"' \
  "$work/sshd_config"
for _ in $(seq 100); do
  ssh -F "$work/ssh_config" -o BatchMode=yes bench true 2>/dev/null && break
  sleep 0.05
done
placement=()
if [ "${PLACEMENT:-apart}" = apart ] && [ "$(nproc)" -ge 2 ] &&
  [[ " $* " != *" --server-cpu"* && " $* " != *" --client-cpu"* ]]; then
  placement=(--server-cpu 1 --client-cpu 0)
fi
"$bench" --cli "$cli" --ssh bench --ssh-config "$work/ssh_config" "${placement[@]}" "$@"
