#!/usr/bin/env bash
# Standard-pass benchmark (issue 7): each pass and each -O level on generated
# models of 1e3..1e6 op calls (--quick: 1e3), seconds and op calls before ->
# after, and `mlir-opt-19 --canonicalize --cse --symbol-dce` on as many arith
# ops in the same run (start-up subtracted) as the anchor. The ratio compares
# our -O3 pipeline's calls/s with MLIR's ops/s.
# Usage: bench/run_passes.sh [--quick] [BUILD_DIR]
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
build=${1:-build/release}
bin="$build/bench_passes"
[ -x "$bin" ] || { echo "run_passes.sh: $bin not built" >&2; exit 1; }
sizes="1000 10000 100000 1000000"
[ $quick = 1 ] && sizes="1000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The fastest of three runs: the machine is shared, and noise only adds time.
seconds() {
  local best="" s e t
  for _ in 1 2 3; do
    s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
    t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best"
}
startup=0
if command -v mlir-opt-19 >/dev/null; then
  echo 'func.func @main() { return }' > "$tmp/empty.mlir"
  startup=$(seconds mlir-opt-19 --canonicalize --cse --symbol-dce "$tmp/empty.mlir")
fi
for n in $sizes; do
  echo "== $n op calls"
  "$bin" "$n" "$tmp/g.mlir" > "$tmp/ours.txt"
  printf '%-28s %10s %9s %9s %12s\n' pass seconds calls_in calls_out calls/s
  awk '{ printf "%-28s %10.4f %9d %9d %12.0f\n", $1, $2, $3, $4, ($2 > 0 ? $3 / $2 : 0) }' "$tmp/ours.txt"
  if command -v mlir-opt-19 >/dev/null; then
    t=$(seconds mlir-opt-19 --canonicalize --cse --symbol-dce "$tmp/g.mlir" -o "$tmp/out.mlir")
    mlir=$(awk -v n="$n" -v t="$t" -v s="$startup" 'BEGIN { d = t - s; if (d < 1e-4) d = 1e-4; printf "%.0f", n / d }')
    o3=$(awk '$1 == "O3" { printf "%.0f", ($2 > 0 ? $3 / $2 : 0) }' "$tmp/ours.txt")
    echo "mlir-opt-19 --canonicalize --cse --symbol-dce: ${t}s (start-up ${startup}s), $mlir ops/s"
    awk -v a="$o3" -v b="$mlir" 'BEGIN { printf "ratio O3 calls/s : MLIR ops/s = %.1fx\n", a / b }'
  fi
done
