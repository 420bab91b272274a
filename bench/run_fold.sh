#!/usr/bin/env bash
# FoldConstant benchmark (issue 5): our pass vs `mlir-opt-19 --canonicalize`
# on the same half-foldable graph, sizes 1e3..1e6 (--quick: 1e3 only).
# Usage: bench/run_fold.sh [--quick] [BUILD_DIR]
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
build=${1:-build/release}
bin="$build/bench_fold_constant"
[ -x "$bin" ] || { echo "run_fold.sh: $bin not built" >&2; exit 1; }
sizes="1000 10000 100000 1000000"
[ $quick = 1 ] && sizes="1000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-9s %14s %12s %14s %8s\n' nodes ours_nodes/s peak_rss_kb mlir_nodes/s ratio
for n in $sizes; do
  read -r _ ours rss < <("$bin" "$n" "$tmp/g.mlir")
  mlir="-"; ratio="-"
  if command -v mlir-opt-19 >/dev/null; then
    s=$(date +%s.%N)
    mlir-opt-19 --canonicalize "$tmp/g.mlir" -o "$tmp/out.mlir"
    e=$(date +%s.%N)
    mlir=$(awk -v n="$n" -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", n / (e - s) }')
    ratio=$(awk -v a="$ours" -v b="$mlir" 'BEGIN { printf "%.1fx", a / b }')
  fi
  printf '%-9s %14s %12s %14s %8s\n' "$n" "$ours" "$rss" "$mlir" "$ratio"
done
