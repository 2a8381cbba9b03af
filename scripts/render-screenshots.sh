#!/usr/bin/env bash
# Renders each page of the window (Targets, Sweep, Run, Compare, the Compare
# table filtered, the Add Lab Targets dialog) with the demo session into OUTDIR
# as PNGs, offscreen, after a short real sweep against the embedded HTTP server
# and its userland proxy. The README's pictures come from
#   scripts/render-screenshots.sh docs/screenshots
# The renderer is LOADSCOPE_SCREENSHOTS when set, else the newest build of
# render_screenshots under build/.
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "usage: render-screenshots.sh OUTDIR [--point-seconds S]" >&2
  exit 2
fi
out=$1
shift

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
renderer=${LOADSCOPE_SCREENSHOTS:-}
if [ -z "$renderer" ]; then
  renderer=$(ls -t "$root"/build/*/tests/ui/render_screenshots 2>/dev/null | head -n 1 || true)
fi
if [ -z "$renderer" ] || [ ! -x "$renderer" ]; then
  echo "render-screenshots.sh: no render_screenshots binary; build it with" >&2
  echo "  cmake --build build/dev --target render_screenshots" >&2
  exit 1
fi

mkdir -p "$out"
# The lab dialog asks loadscope-cli for its embedded servers' versions: the one of the same
# build, when the window would not find one beside the renderer.
cli_dir=$(cd "$(dirname "$renderer")/../../app/cli" 2>/dev/null && pwd || true)
if [ -n "$cli_dir" ] && [ -x "$cli_dir/loadscope-cli" ]; then
  PATH="$cli_dir:$PATH"
  export PATH
fi
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} exec "$renderer" --screenshots "$out" "$@"
