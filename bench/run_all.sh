#!/bin/sh
# Runs every benchmark driver (bench/run_*.sh) against one build directory,
# each printing its own table with ratios against its anchor (MLIR, ONNX
# Runtime) measured in the same run. `--quick` is passed through.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
quick=""
[ "${1:-}" = "--quick" ] && { quick="--quick"; shift; }
build=$(cd "${1:?usage: run_all.sh [--quick] BUILD_DIR}" && pwd)
status=0
for driver in "$here"/run_*.sh; do
  [ "$driver" = "$here/run_all.sh" ] && continue
  echo "== $(basename "$driver" .sh)"
  # shellcheck disable=SC2086
  "$driver" $quick "$build" || { echo "!! $(basename "$driver") failed"; status=1; }
  echo
done
exit $status
