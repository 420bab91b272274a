#!/usr/bin/env bash
# Where the -O3 pipeline's time goes, per pass and per size (issue 21), in
# instructions (callgrind counts them, so the machine's load does not matter)
# and, with --cache, last-level cache misses (callgrind's cache simulator).
# Each pass runs alone on the typed model of bench_passes (bench/passes.c),
# then O0 and O3 whole; a pass's count is what callgrind collects inside
# psg_pass_run minus the same for a run of no pass (the InferType that
# types the input). Prints instructions (and LL misses) per input op call.
# Usage: [PASSES="P1 P2"] bench/profile_passes.sh [--cache] [BUILD_DIR] [SIZES...]
set -euo pipefail
cache=0
[ "${1:-}" = "--cache" ] && { cache=1; shift; }
build=${1:-build/release}
shift || true
sizes=${*:-1000 10000 100000}
bin="$build/bench_passes"
[ -x "$bin" ] || { echo "profile_passes.sh: $bin not built" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "profile_passes.sh: valgrind not found" >&2; exit 1; }
passes=${PASSES:-"InferType SimplifyInference EliminateCommonSubexpr FoldConstant FoldScaleAxis SimplifyExpr \
CanonicalizeCast CanonicalizeOps FuseOps O0 O3"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--tool=callgrind --collect-atstart=no --toggle-collect=psg_pass_run)
[ $cache = 1 ] && opts+=(--cache-sim=yes)
# "Ir DLmr DLmw" (instructions, LL read and write misses) of one run.
count() {
  valgrind "${opts[@]}" --callgrind-out-file="$tmp/cg" "$bin" "$1" - "$2" > "$tmp/out" 2>/dev/null
  awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
       /^summary:/ { ir = $(col["Ir"] + 1); dr = ("DLmr" in col) ? $(col["DLmr"] + 1) : 0;
                     dw = ("DLmw" in col) ? $(col["DLmw"] + 1) : 0; print ir, dr + dw }' "$tmp/cg"
}
printf '%-24s' pass
for n in $sizes; do printf ' %14s' "instr/call@$n"; [ $cache = 1 ] && printf ' %12s' "LLmiss@$n"; done
echo
declare -A base_ir base_miss calls
for n in $sizes; do
  read -r base_ir[$n] base_miss[$n] < <(count "$n" NONE)
done
for p in $passes; do
  printf '%-24s' "$p"
  for n in $sizes; do
    read -r ir miss < <(count "$n" "$p")
    c=$(awk '{ print $3 }' "$tmp/out")
    awk -v a="$ir" -v b="${base_ir[$n]}" -v c="$c" 'BEGIN { printf " %14.0f", (a - b) / c }'
    [ $cache = 1 ] && awk -v a="$miss" -v b="${base_miss[$n]}" -v c="$c" 'BEGIN { printf " %12.3f", (a - b) / c }'
  done
  echo
done
