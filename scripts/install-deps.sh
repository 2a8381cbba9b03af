#!/usr/bin/env bash
# Installs the Debian 12 packages Loadscope needs, only those that are missing.
#   install-deps.sh build   compiler, lld (the presets link with it), CMake, Qt 6, QCoro, OpenSSL, nghttp2
#   install-deps.sh test    build + the peers the tests and benchmarks start (nginx, Apache,
#                           memcached, redis-server, Open vSwitch, ab, wrk, h2load, clang, xvfb,
#                           uidmap, python3, OpenSSH's server for the tests' own sshd, never
#                           started as a service), xdotool (keys for the window under Xvfb),
#                           man-db (the man pages), and
#                           docker.io's docker-proxy unpacked into build/deps (see below)
#   install-deps.sh run     build + an X server for machines without a display
#   install-deps.sh package build + dpkg-shlibdeps and file, which CPack's Debian package needs
set -euo pipefail

build=(cmake ninja-build g++ lld pkg-config qt6-base-dev qt6-charts-dev qt6-svg-dev
       libqt6opengl6-dev libxkbcommon-dev libgl-dev qcoro-qt6-dev libssl-dev
       libnghttp2-dev)
test=(nginx-light apache2 memcached redis-server wrk apache2-utils nghttp2-client openssl clang
      libclang-rt-14-dev xvfb xauth time python3 procps iproute2 nftables slirp4netns openvswitch-switch
      ethtool uidmap fonts-dejavu-core openssh-server openssh-client xdotool man-db)
run=(xvfb xauth fonts-dejavu-core)
package=(dpkg-dev file)

wanted=("${build[@]}")
case "${1:-build}" in
  build) ;;
  test) wanted+=("${test[@]}") ;;
  run) wanted+=("${run[@]}") ;;
  package) wanted+=("${package[@]}") ;;
  *) echo "install-deps.sh: unknown set '$1' (build, test, run or package)" >&2; exit 2 ;;
esac

# The lab's userland-proxy mode runs Debian's real docker-proxy when it can find one. Installing
# docker.io would bring its daemon, which (where an init starts it) makes a bridge and iptables
# rules in the machine's own namespace: the tests take only the relay, unpacked from the package
# into build/deps/docker-proxy/, and put that directory on the lab's PATH. Without the archive the
# lab falls back to its embedded proxy, and the docker-proxy test says why it skipped.
unpack_docker_proxy() {
  local into=build/deps/docker-proxy
  command -v docker-proxy >/dev/null 2>&1 && return 0
  [ -x "$into/docker-proxy" ] && return 0
  local work
  work=$(mktemp -d)
  if (cd "$work" && { apt-get download docker.io >/dev/null 2>&1 ||
                      { [ "$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download docker.io >/dev/null 2>&1; }; }); then
    mkdir -p "$into"
    dpkg-deb --fsys-tarfile "$work"/docker.io_*.deb | tar -x -C "$work" ./usr/sbin/docker-proxy
    mv "$work/usr/sbin/docker-proxy" "$into/docker-proxy"
    dpkg-deb -f "$work"/docker.io_*.deb Version >"$into/version"
    echo "Unpacked docker-proxy $(cat "$into/version") into $into"
  else
    echo "install-deps.sh: docker.io could not be downloaded: the lab tests use the embedded proxy" >&2
  fi
  rm -rf "$work"
}

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "${1:-build}" = test ] && unpack_docker_proxy
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
  exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Debian starts packaged servers on install (apache2 on port 80, redis-server on 6379, ovsdb-server and ovs-vswitchd
# in the machine's namespace); the tests and the lab start their own. A policy-rc.d that denies
# every start keeps them stopped; one the machine already has (a container's) stays as it is.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Servers a machine's own policy-rc.d let start: the tests start their own on free ports.
for svc in nginx memcached redis-server apache2 openvswitch-switch; do
  if command -v service >/dev/null 2>&1; then service "$svc" stop >/dev/null 2>&1 || true; fi
done
[ "${1:-build}" = test ] && unpack_docker_proxy
exit 0
