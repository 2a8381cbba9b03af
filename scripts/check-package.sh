#!/usr/bin/env bash
# The Debian package as a new user gets it, on a Debian 12 with nothing on it. Not part of
# scripts/test.sh: it takes tens of minutes (a debootstrap, a whole build without a compiler cache).
#
#   scripts/check-package.sh [WORKDIR]        as root; WORKDIR is removed afterwards unless KEEP=1
#
# 1. A fresh clone of this repository's HEAD (what is committed; nothing else of this tree).
# 2. A minimal Debian 12 (debootstrap --variant=minbase), copied twice: one to build in, one
#    untouched to install in.
# 3. In the first: scripts/package.sh, which installs what the build needs and makes
#    loadscope_VERSION_amd64.deb.
# 4. In the second: apt-get install ./loadscope_VERSION_amd64.deb (with what it recommends), then
#    the installed programs, each in a network namespace of its own (unshare -n), so that nothing
#    they do reaches the machine's network: `loadscope-cli lab check`, a headless
#    `loadscope-cli sweep lab-tcp-rr` and its report, and the window: `loadscope lab-tcp-rr`
#    under Xvfb, Start pressed with xdotool (installed only now, after the package), which must
#    start /usr/bin/loadscope-cli's lab sandbox and its agent.
# A policy-rc.d in both keeps Debian from starting any server it installs. Prints each step's
# time; exits non-zero at the first step that fails.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "check-package.sh: run as root (debootstrap, mounts and namespaces need it)" >&2
  exit 2
fi
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-$(mktemp -d /tmp/loadscope-package-check.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
security=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
started=$SECONDS
step() { printf '\n== [%4ds] %s\n' "$((SECONDS - started))" "$*"; }

mounted=()
cleanup() {
  local status=$?
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept $work"
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

prepare_root() { # ROOT: the archive, a policy-rc.d, /sys and /dev
  local root=$1
  # Never the machine's own root: everything below writes into ROOT and mounts on it.
  case $root in "$work"/?*) ;; *) echo "check-package.sh: '$root' is not under $work" >&2; exit 1 ;; esac
  [ -d "$root/etc/apt" ] || { echo "check-package.sh: $root is no Debian root" >&2; exit 1; }
  cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount --rbind /sys "$root/sys" && mounted+=("$root/sys")
  mount --rbind /dev "$root/dev" && mounted+=("$root/dev")
}
# ROOT COMMAND...: COMMAND as root of ROOT with a plain environment, in mount and PID namespaces
# of its own. ROOT becomes the mount namespace's root by pivot_root, not chroot: a chrooted
# process may not make the user namespaces the lab's sandbox is built in. Whatever COMMAND
# leaves running ends with it (the PID namespace's first process), and with this script.
in_root() {
  local root=$1
  shift
  unshare --mount --propagation private --pid --fork --kill-child -- /bin/bash -c '
    set -e
    root=$1
    shift
    mount --rbind "$root" "$root"
    cd "$root"
    mkdir -p .host-root
    pivot_root . .host-root
    cd /
    mount -t proc proc /proc
    umount -l /.host-root
    rmdir /.host-root
    exec /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
  ' in-root "$root" ${CMAKE_BUILD_PARALLEL_LEVEL:+env CMAKE_BUILD_PARALLEL_LEVEL=$CMAKE_BUILD_PARALLEL_LEVEL} "$@"
}

step "fresh clone of $(git -C "$source_dir" rev-parse --short HEAD)"
git clone --quiet --no-local "$source_dir" "$work/src"

step "debootstrap Debian 12 (minbase) from $mirror"
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; exit 1; }
cp -a "$work/base" "$work/build"
mv "$work/base" "$work/install"

step "build the package in the first (scripts/package.sh)"
prepare_root "$work/build"
mkdir -p "$work/build/root/loadscope"
cp -a "$work/src/." "$work/build/root/loadscope/"
in_root "$work/build" /bin/bash -c 'cd /root/loadscope && bash scripts/package.sh' \
  >"$work/package.log" 2>&1 || { tail -40 "$work/package.log"; exit 1; }
deb=$(ls "$work"/build/root/loadscope/build/package/loadscope_*_amd64.deb)
cp "$deb" "$work/install/root/"
deb_name=$(basename "$deb")
echo "$deb_name: $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -f "$deb" Depends Recommends Suggests

step "apt-get install ./$deb_name in the second, untouched one"
prepare_root "$work/install"
in_root "$work/install" apt-get update -qq
in_root "$work/install" apt-get install -y -qq "./root/$deb_name" >"$work/install.log" 2>&1 ||
  { tail -30 "$work/install.log"; exit 1; }
in_root "$work/install" /bin/sh -c 'command -v loadscope loadscope-cli && loadscope-cli --version'

step "loadscope-cli lab check (unshare -n)"
in_root "$work/install" unshare -n loadscope-cli lab check

step "loadscope-cli sweep lab-tcp-rr, headless (unshare -n)"
in_root "$work/install" unshare -n loadscope-cli sweep lab-tcp-rr --out /root/lab.loadscope
in_root "$work/install" loadscope-cli report /root/lab.loadscope

step "the window: loadscope lab-tcp-rr under Xvfb, Start pressed (unshare -n)"
in_root "$work/install" apt-get install -y -qq --no-install-recommends xvfb xauth xdotool procps \
  >>"$work/install.log" 2>&1 || { tail -30 "$work/install.log"; exit 1; }
cat >"$work/install/root/press-start.sh" <<'EOF'
#!/bin/bash
# In a network namespace of its own: Xvfb, the installed window on lab-tcp-rr, Ctrl+3 (the Run
# page) and Alt+S (Start); then the window's child must be /usr/bin/loadscope-cli's lab sandbox,
# and the load agent must start inside the lab it builds.
set -euo pipefail
ip link set lo up 2>/dev/null || true
mkdir -p /root/window && cd /root/window
rm -f display
Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3>display >xvfb.log 2>&1 &
xvfb=$!
for _ in $(seq 100); do [ -s display ] && break; sleep 0.1; done
export DISPLAY=":$(cat display)" HOME=/root/window XDG_RUNTIME_DIR=/root/window
loadscope lab-tcp-rr >window.log 2>&1 &
window=$!
id=$(timeout 30 xdotool search --sync --onlyvisible --class loadscope | head -1)
xdotool windowfocus --sync "$id"
sleep 1
xdotool key ctrl+3
sleep 0.3
xdotool key alt+s
descendants() { # PID: the command lines of its descendants
  ps -e -o pid=,ppid=,args= | awk -v top="$1" '
    { parent[$1] = $2; line = $0; sub(/^ *[0-9]+ +[0-9]+ /, "", line); args[$1] = line }
    END { for (p in args) { q = p; while ((q in parent) && q != top && q > 1) q = parent[q]
                            if (q == top && p != top) print args[p] } }'
}
status=1
for _ in $(seq 300); do
  sandbox=$(ps -o pid=,args= --ppid "$window" | awk '$3 == "lab" && $4 == "sandbox" {print $1; exit}' || true)
  inside=$([ -n "$sandbox" ] && descendants "$sandbox" || true)
  if grep -qx '/usr/bin/loadscope-cli lab agent' <<<"$inside"; then
    echo "Start started $(readlink /proc/"$sandbox"/exe) lab sandbox, and its agent runs in the lab"
    status=0
    break
  fi
  sleep 0.1
done
[ $status -eq 0 ] || { echo "no lab sandbox and agent after Start"; cat window.log; }
kill "$window" 2>/dev/null || true
wait "$window" 2>/dev/null || true
kill "$xvfb" 2>/dev/null || true
exit $status
EOF
chmod +x "$work/install/root/press-start.sh"
in_root "$work/install" unshare -n /root/press-start.sh

step "done: the package builds, installs with apt, and its programs run the lab"
