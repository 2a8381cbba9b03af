#!/usr/bin/env bash
# The main job: builds Loadscope, starts the embedded demo servers (an HTTP
# server on 127.0.0.1:18080 and the userland proxy 127.0.0.1:18081 in front of
# it; the same over HTTPS on 18443 and 18444 for demo-https) and opens the workbench window on the demo session, ready to press Run.
# Without a display it runs the same demo sweep headless and prints the
# comparison. Installs missing Debian packages first. Servers stop on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh run
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target loadscope loadscope-cli

bin=build/release/bin # both programs, side by side as installed
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

start_server() { # args...: starts `loadscope-cli serve ...`, waits for its "listening on" line
  local log
  log=$(mktemp)
  "$bin/loadscope-cli" serve "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do
    grep -q 'listening on' "$log" && { sed -n 's/^/  /p' "$log" | head -1; return 0; }
    sleep 0.1
  done
  echo "could not start 'loadscope-cli serve $*':" >&2
  cat "$log" >&2
  exit 1
}

echo "Demo servers:"
start_server http --port 18080
start_server proxy --port 18081 --to 127.0.0.1:18080
start_server http --port 18443 --tls
start_server proxy --port 18444 --to 127.0.0.1:18443

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  "$bin/loadscope" "${1:-demo-proxy}"
else
  echo "No display: running the demo sweep headless (the window needs X11 or Wayland)."
  out=$(mktemp --suffix=.loadscope)
  rm -f "$out"
  "$bin/loadscope-cli" sweep "${1:-demo-proxy}" --out "$out"
  echo "Results saved in $out; open it in the window with: $bin/loadscope $out"
fi
