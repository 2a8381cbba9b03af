#!/usr/bin/env bash
# Builds Loadscope and runs every test: the Qt Test suites (ctest, warnings as
# errors), the engine suites again under ASan+UBSan and TSan, and a short run
# of each libFuzzer target. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh test
jobs=$(nproc)

echo "== build (preset ci)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"

echo "== tests (preset ci)"
ctest --preset ci -j "$jobs"

for preset in asan tsan; do
  echo "== engine tests under $preset"
  cmake --preset "$preset" >/dev/null
  targets=$(ctest --test-dir "build/$preset" -N -L engine | sed -n 's/^ *Test *#[0-9]*: //p')
  # shellcheck disable=SC2086
  cmake --build --preset "$preset" -j "$jobs" --target $targets
  ctest --preset "$preset" -j "$jobs"
done

echo "== fuzz targets (30 s each)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
for fuzzer in build/fuzz/tests/fuzz/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  corpus="tests/fuzz/corpus/$(basename "$fuzzer")"
  mkdir -p "build/fuzz/corpus-$(basename "$fuzzer")"
  "$fuzzer" -max_total_time=30 -rss_limit_mb=2048 -print_final_stats=0 \
    "build/fuzz/corpus-$(basename "$fuzzer")" ${corpus:+$( [ -d "$corpus" ] && echo "$corpus")} \
    2>"build/fuzz/$(basename "$fuzzer").log" \
    || { tail -40 "build/fuzz/$(basename "$fuzzer").log"; exit 1; }
  echo "$(basename "$fuzzer"): no crash in 30 s"
done
