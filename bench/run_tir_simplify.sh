#!/usr/bin/env bash
# tir.Simplify benchmark (issue 15): the pass on generated PrimFuncs of
# 1e3..1e6 statements (bench/tir_simplify.c) against `mlir-opt-19
# --canonicalize` on their func/memref/arith twins, in the same run
# (--quick: 1e3, 1e4). Both sides are pass time only: ours from the
# benchmark's clock around psg_pass_run, MLIR's the Canonicalizer line of
# --mlir-timing (best of the runs). The mlir-opt wall time of the whole
# process (parse, pass, print) is shown too, for scale.
# Usage: bench/run_tir_simplify.sh [--quick] [BUILD_DIR]
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
build=${1:-build/release}
bin="$build/bench_tir_simplify"
[ -x "$bin" ] || { echo "run_tir_simplify.sh: $bin not built" >&2; exit 1; }
sizes="1000 10000 100000 1000000"
[ $quick = 1 ] && sizes="1000 10000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Best Canonicalizer time and best process wall time over $2 runs of
# mlir-opt-19 on $1, in seconds: "pass wall".
mlir_times() {
  local best_pass=1e9 best_wall=1e9 s e p
  for _ in $(seq "$2"); do
    s=$(date +%s.%N)
    mlir-opt-19 --canonicalize --mlir-timing "$1" -o "$tmp/out.mlir" 2> "$tmp/timing.txt"
    e=$(date +%s.%N)
    p=$(awk '$NF == "Canonicalizer" { print $1; exit }' "$tmp/timing.txt")
    [ -n "$p" ] || { cat "$tmp/timing.txt" >&2; echo "run_tir_simplify.sh: no Canonicalizer line" >&2; exit 1; }
    best_pass=$(awk -v b="$best_pass" -v p="$p" 'BEGIN { print (p < b ? p : b) }')
    best_wall=$(awk -v b="$best_wall" -v s="$s" -v e="$e" 'BEGIN { d = e - s; print (d < b ? d : b) }')
  done
  echo "$best_pass $best_wall"
}

have_mlir=0
command -v mlir-opt-19 >/dev/null && have_mlir=1 || echo "mlir-opt-19 not found: MLIR columns left empty" >&2

printf '%-8s %12s %14s %13s %14s %14s %7s\n' stmts ours_s ours_stmts/s mlir_pass_s mlir_stmts/s mlir_wall_s ratio
for n in $sizes; do
  read -r _ ours < <("$bin" "$n" "$tmp/g.mlir")
  mp="-"; mw="-"; mrate="-"; ratio="-"
  if [ $have_mlir = 1 ]; then
    runs=3; [ "$n" -ge 1000000 ] && runs=1
    read -r mp mw < <(mlir_times "$tmp/g.mlir" $runs)
    mrate=$(awk -v n="$n" -v t="$mp" 'BEGIN { if (t < 1e-4) t = 1e-4; printf "%.0f", n / t }')
    ratio=$(awk -v a="$ours" -v b="$mp" 'BEGIN { if (b < 1e-4) b = 1e-4; printf "%.1fx", b / a }')
  fi
  awk -v n="$n" -v t="$ours" -v mp="$mp" -v mr="$mrate" -v mw="$mw" -v r="$ratio" 'BEGIN {
    printf "%-8d %12.6f %14.0f %13s %14s %14s %7s\n", n, t, n / t, mp, mr, mw, r
  }'
done
