#!/usr/bin/env bash
# Builds Loadscope and runs every test: the Qt Test suites (ctest, warnings as
# errors), the engine suites again under ASan+UBSan and TSan, and a short run of
# each libFuzzer target. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh test
jobs=$(nproc)

# Each stage's start: seconds since the script began, and the CPU seconds (user +
# system) its finished children have used, which a machine shared with other work
# changes far less than the wall time.
# (`times` in this shell: in a pipeline or $(...) it would time the subshell.)
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
stage() {
  local cpu
  times >"$times_file"
  cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }' "$times_file")
  echo "== $1 [${SECONDS} s, ${cpu} s CPU]"
}

# What this machine has (its own probes, not the product's): a suite that would
# skip for want of one of these fails instead (tests/support/required_here.h).
LOADSCOPE_REQUIRE=$(bash scripts/machine-has.sh)
export LOADSCOPE_REQUIRE
echo "== this machine has: $LOADSCOPE_REQUIRE"

# The ci preset (optimised, warnings are errors) builds everything and runs every
# suite; asan (ASan+UBSan) and tsan build and run the engine suites: each sanitizer
# stage builds only the executables of the suites its test preset chooses.
run_preset() { # PRESET all|suites
  local preset=$1 targets=()
  stage "build (preset $preset)"
  cmake --preset "$preset" >/dev/null
  if [ "$2" = suites ]; then
    read -r -a targets <<<"$(ctest --preset "$preset" -N | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')"
    targets=(--target "${targets[@]}")
  fi
  cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
  stage "tests (preset $preset)"
  ctest --preset "$preset" -j "$jobs"
}
run_preset ci all
run_preset asan suites
run_preset tsan suites

# Each fuzzer runs FUZZ_SECONDS (10 by default: a check that every target
# still runs clean from its corpus; set it higher for a longer search).
fuzz_seconds=${FUZZ_SECONDS:-10}
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
