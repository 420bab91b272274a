#!/usr/bin/env bash
# Text-format benchmark (issue 2): parse and print of generated Relay modules
# of 1e3..1e6 nodes (MB/s, nodes/s) against `mlir-opt-19` parsing and printing
# the same graph in MLIR's textual form, in the same run (--quick: 1e3, 1e4).
# With --tir (issue 15), the same for a TVMScript PrimFunc of 1e3..1e6
# statements against its func/memref/arith twin (bench/tir_parse_print.c);
# the size column then counts statements.
# mlir-opt's process start-up is measured on an empty module and subtracted.
# Usage: bench/run_parse_print.sh [--tir] [--quick] [BUILD_DIR]
set -euo pipefail
quick=0
name=bench_parse_print unit=nodes
[ "${1:-}" = "--tir" ] && { name=bench_tir_parse_print unit=stmts; shift; }
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
build=${1:-build/release}
bin="$build/$name"
[ -x "$bin" ] || { echo "run_parse_print.sh: $bin not built" >&2; exit 1; }
sizes="1000 10000 100000 1000000"
[ $quick = 1 ] && sizes="1000 10000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Best wall time of `mlir-opt-19 FILE -o OUT` over $2 runs, in seconds.
mlir_time() {
  local best=1e9 s e
  for _ in $(seq "$2"); do
    s=$(date +%s.%N)
    mlir-opt-19 "$1" -o "$tmp/out.mlir"
    e=$(date +%s.%N)
    best=$(awk -v b="$best" -v s="$s" -v e="$e" 'BEGIN { d = e - s; print (d < b ? d : b) }')
  done
  echo "$best"
}

have_mlir=0
if command -v mlir-opt-19 >/dev/null; then
  have_mlir=1
  printf 'module {\n}\n' > "$tmp/empty.mlir"
  startup=$(mlir_time "$tmp/empty.mlir" 5)
else
  echo "mlir-opt-19 not found: MLIR columns left empty" >&2
fi

printf '%-8s %9s %11s %13s %11s %13s %13s %13s %7s\n' \
  $unit text_MB parse_MB/s parse_$unit/s print_MB/s print_$unit/s ours_$unit/s mlir_$unit/s ratio
for n in $sizes; do
  read -r _ bytes parse print < <("$bin" "$n" "$tmp/g.mlir")
  mlir="-"; ratio="-"
  if [ $have_mlir = 1 ]; then
    runs=3; [ "$n" -ge 1000000 ] && runs=1
    t=$(mlir_time "$tmp/g.mlir" $runs)
    mlir=$(awk -v n="$n" -v t="$t" -v s="$startup" 'BEGIN { d = t - s; if (d < 1e-4) d = 1e-4; printf "%.0f", n / d }')
  fi
  awk -v n="$n" -v b="$bytes" -v p="$parse" -v q="$print" -v m="$mlir" 'BEGIN {
    ours = n / (p + q)
    r = (m == "-") ? "-" : sprintf("%.1fx", ours / m)
    printf "%-8d %9.2f %11.1f %13.0f %11.1f %13.0f %13.0f %13s %7s\n", n, b / 1e6, b / 1e6 / p, n / p, b / 1e6 / q, n / q, ours, m, r
  }'
done
