#!/usr/bin/env bash
# Builds Loadscope and runs every test: the Qt Test suites (ctest, warnings as
# errors), every suite again under ASan+UBSan (the window's offscreen) but the
# one that measures the machine's load, the engine suites and the app suites
# that run threads of their own under TSan, and a short run of each libFuzzer
# target. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh test
jobs=$(nproc)

# Each stage's start: seconds since the script began, and the CPU seconds (user +
# system) its finished children have used, which a machine shared with other work
# changes far less than the wall time.
stage() {
  local cpu
  cpu=$(times | awk 'NR == 2 { gsub(/[ms]/, " "); printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }')
  echo "== $1 [${SECONDS} s, ${cpu} s CPU]"
}

# What this machine has (its own probes, not the product's): a suite that would
# skip for want of one of these fails instead (tests/support/required_here.h).
LOADSCOPE_REQUIRE=$(bash scripts/machine-has.sh)
export LOADSCOPE_REQUIRE
echo "== this machine has: $LOADSCOPE_REQUIRE"

stage "build (preset ci)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"

stage "tests (preset ci)"
ctest --preset ci -j "$jobs"

# The test presets choose the suites (asan: all but label no-sanitizer; tsan: labels
# engine and workers); only their executables are built.
for preset in asan tsan; do
  stage "build (preset $preset)"
  cmake --preset "$preset" >/dev/null
  targets=$(ctest --preset "$preset" -N | sed -n 's/^ *Test *#[0-9]*: //p')
  # shellcheck disable=SC2086
  cmake --build --preset "$preset" -j "$jobs" --target $targets
  stage "tests (preset $preset)"
  ctest --preset "$preset" -j "$jobs"
done

# Each fuzzer runs FUZZ_SECONDS (20 by default: a check that every target
# still runs clean from its corpus; set it higher for a longer search).
fuzz_seconds=${FUZZ_SECONDS:-20}
stage "build (preset fuzz)"
cmake --preset fuzz >/dev/null
fuzzers=$(sed -n 's/^loadscope_add_fuzzer(\([a-z0-9_]*\) .*/\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086
cmake --build --preset fuzz -j "$jobs" --target $fuzzers

stage "fuzz targets ($fuzz_seconds s each, $jobs at a time)"

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
stage "all passed"
