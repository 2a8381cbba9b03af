#!/usr/bin/env bash
# Installs the Debian 12 packages Loadscope needs, only those that are missing.
#   install-deps.sh build   compiler, CMake, Qt 6, QCoro, OpenSSL
#   install-deps.sh test    build + the peers the tests and benchmarks start (nginx, memcached,
#                           ab, wrk, h2load, clang, xvfb)
#   install-deps.sh run     build + an X server for machines without a display
set -euo pipefail

build=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-charts-dev qt6-svg-dev
       libqt6opengl6-dev libxkbcommon-dev libgl-dev qcoro-qt6-dev libssl-dev)
test=(nginx-light memcached wrk apache2-utils nghttp2-client openssl clang libclang-rt-14-dev
      xvfb xauth time procps iproute2 nftables slirp4netns fonts-dejavu-core)
run=(xvfb xauth fonts-dejavu-core)

wanted=("${build[@]}")
case "${1:-build}" in
  build) ;;
  test) wanted+=("${test[@]}") ;;
  run) wanted+=("${run[@]}") ;;
  *) echo "install-deps.sh: unknown set '$1' (build, test or run)" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
  exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian starts packaged servers on install; the tests start their own on free ports.
for svc in nginx memcached; do
  if command -v service >/dev/null 2>&1; then service "$svc" stop >/dev/null 2>&1 || true; fi
done
