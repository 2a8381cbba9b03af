#!/usr/bin/env bash
# Builds Loadscope and runs every test: the Qt Test suites (ctest, warnings as
# errors), the engine suites again under ASan+UBSan and TSan, and a short run
# of each libFuzzer target. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh test
jobs=$(nproc)

echo "== build (preset ci) [${SECONDS} s]"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"

echo "== tests (preset ci) [${SECONDS} s]"
ctest --preset ci -j "$jobs"

for preset in asan tsan; do
  echo "== engine tests under $preset [${SECONDS} s]"
  cmake --preset "$preset" >/dev/null
  targets=$(ctest --test-dir "build/$preset" -N -L engine | sed -n 's/^ *Test *#[0-9]*: //p')
  # shellcheck disable=SC2086
  cmake --build --preset "$preset" -j "$jobs" --target $targets
  ctest --preset "$preset" -j "$jobs"
done

# Each fuzzer runs FUZZ_SECONDS (20 by default: a check that every target
# still runs clean from its corpus; set it higher for a longer search).
fuzz_seconds=${FUZZ_SECONDS:-20}
echo "== fuzz targets ($fuzz_seconds s each, $jobs at a time) [${SECONDS} s]"
cmake --preset fuzz >/dev/null
fuzzers=$(sed -n 's/^loadscope_add_fuzzer(\([a-z0-9_]*\) .*/\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086
cmake --build --preset fuzz -j "$jobs" --target $fuzzers

# One fuzzer per core: each is single-threaded and runs for a fixed time.
run_fuzzer() {
  local name=$1 seeds=()
  # Seeds from the repository, findings kept in the build tree between runs.
  [ -d "tests/fuzz/corpus/$name" ] && seeds=("tests/fuzz/corpus/$name")
  mkdir -p "build/fuzz/corpus-$name"
  "build/fuzz/tests/fuzz/$name" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -print_final_stats=1 \
    "build/fuzz/corpus-$name" "${seeds[@]}" 2>"build/fuzz/$name.log"
}
pids=() names=()
for name in $fuzzers; do
  run_fuzzer "$name" &
  pids+=("$!") names+=("$name")
  [ "${#pids[@]}" -lt "$jobs" ] && continue
  # All cores busy: wait for the oldest (all run equally long).
  wait "${pids[0]}" || { tail -40 "build/fuzz/${names[0]}.log"; exit 1; }
  pids=("${pids[@]:1}") names=("${names[@]:1}")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { tail -40 "build/fuzz/${names[$i]}.log"; exit 1; }
done
for name in $fuzzers; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$name.log")
  echo "$name: no crash in $fuzz_seconds s ($runs inputs)"
done
echo "== all passed in ${SECONDS} s"
