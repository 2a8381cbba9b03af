#!/usr/bin/env bash
# Builds the Debian package build/package/loadscope_VERSION_amd64.deb from this
# tree: installs what the build needs, then CMake's `package` workflow
# (configure, build without tests, CPack). Its dependencies are dpkg-shlibdeps'
# reading of the programs; install it with `apt-get install ./build/package/loadscope_*.deb`.
# scripts/check-package.sh builds and installs it on a Debian 12 with nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh package
cmake --workflow --preset package
ls build/package/loadscope_*_amd64.deb
