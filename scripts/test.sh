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
fuzzers=$(sed -n 's/^loadscope_add_fuzzer(\([a-z_]*\) .*/\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086
cmake --build --preset fuzz -j "$jobs" --target $fuzzers
for name in $fuzzers; do
  # Seeds from the repository, findings kept in the build tree between runs.
  seeds=()
  [ -d "tests/fuzz/corpus/$name" ] && seeds=("tests/fuzz/corpus/$name")
  mkdir -p "build/fuzz/corpus-$name"
  log="build/fuzz/$name.log"
  "build/fuzz/tests/fuzz/$name" -max_total_time=30 -rss_limit_mb=2048 -print_final_stats=1 \
    "build/fuzz/corpus-$name" "${seeds[@]}" 2>"$log" || { tail -40 "$log"; exit 1; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$name: no crash in 30 s ($runs inputs)"
done
