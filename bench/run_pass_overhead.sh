#!/usr/bin/env bash
# Pass-manager overhead (issue 3): P no-op function passes over N small
# functions, ours without instruments and with the timing instrument, and the
# same pipeline in mlir-opt-19 (P x loop-invariant-code-motion, which finds no
# loop: a no-op function pass), single-threaded, without the verifier, then
# with -mlir-timing. Reports ns per pass execution per function; MLIR's is
# (time with P passes - time with 1 pass) / ((P-1) * N), so parsing and
# printing cancel out.
# Usage: bench/run_pass_overhead.sh [--quick] [BUILD_DIR]   (default 20000 x 100)
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
build=${1:-build/release}
bin="$build/bench_pass_overhead"
[ -x "$bin" ] || { echo "run_pass_overhead.sh: $bin not built" >&2; exit 1; }
n=20000; p=100
[ $quick = 1 ] && { n=200; p=10; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$bin" "$n" "$p" "$tmp/m.mlir")
echo "$out"
ours=$(awk '/plain_ns_per_exec/ { print $4 }' <<<"$out")
ours_t=$(awk '/timed_ns_per_exec/ { print $4 }' <<<"$out")

command -v mlir-opt-19 >/dev/null || { echo "mlir-opt-19 not found: no comparison"; exit 0; }
pipeline() { # pipeline K: builtin.module(func.func(licm,...K times))
  local s="" i
  for ((i = 0; i < $1; i++)); do s+="${s:+,}loop-invariant-code-motion"; done
  echo "builtin.module(func.func($s))"
}
secs() { # seconds of one mlir-opt run with pipeline "$1" and extra flags
  local pl=$1; shift
  local s e
  s=$(date +%s.%N)
  mlir-opt-19 --mlir-disable-threading -verify-each=0 "$@" --pass-pipeline="$pl" "$tmp/m.mlir" -o /dev/null 2>/dev/null
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}
ns_per_exec() { awk -v a="$1" -v b="$2" -v n="$n" -v p="$p" 'BEGIN { printf "%.1f", (b - a) / ((p - 1) * n) * 1e9 }'; }
one=$(pipeline 1); many=$(pipeline "$p")
mlir=$(ns_per_exec "$(secs "$one")" "$(secs "$many")")
mlir_t=$(ns_per_exec "$(secs "$one" -mlir-timing)" "$(secs "$many" -mlir-timing)")
printf '%-28s %12s %12s %8s\n' "ns per pass per function" passage mlir-opt-19 ratio
printf '%-28s %12s %12s %8s\n' "no instruments" "$ours" "$mlir" \
  "$(awk -v a="$ours" -v b="$mlir" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')"
printf '%-28s %12s %12s %8s\n' "timing (-mlir-timing)" "$ours_t" "$mlir_t" \
  "$(awk -v a="$ours_t" -v b="$mlir_t" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')"
