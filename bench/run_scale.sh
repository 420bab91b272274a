#!/usr/bin/env bash
# The whole pipeline at scale (issue 21): bench_passes' O3 and O0 alone, and
# the run of no pass (text, parse, typed input), at each size, under
# /usr/bin/time: wall seconds of the pass (bench_passes' own clock), user and
# system seconds, minor page faults and peak RSS of the process, the fastest
# of RUNS runs (the machine is shared; noise only adds time). Then
# `mlir-opt-19 --canonicalize --cse --symbol-dce` on as many arith ops.
# Usage: bench/run_scale.sh [BUILD_DIR] [SIZES...]
#   RUNS=3; MLIR=0 skips mlir-opt; PASSES="none O0 O3" (O0 needs ~2.5 KB per call)
set -euo pipefail
build=${1:-build/release}
shift || true
sizes=${*:-1000 10000 100000 1000000 10000000}
runs=${RUNS:-3}
bin="$build/bench_passes"
[ -x "$bin" ] || { echo "run_scale.sh: $bin not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %-5s %9s %12s %8s %8s %10s %10s %9s\n' calls pass seconds calls/s user sys minflt peakRSS_MB B/call
for n in $sizes; do
  for pass in ${PASSES:-none O0 O3}; do
    best=""
    for _ in $(seq "$runs"); do
      /usr/bin/time -f '%U %S %R %M' -o "$tmp/time" "$bin" "$n" - "$pass" > "$tmp/out"
      line="$(awk '{ print $2, $3 }' "$tmp/out") $(cat "$tmp/time")"
      [ "$pass" = none ] && line="0 $n $(cat "$tmp/time")"
      # keep the run with the least user+sys time (wall of the pass for O*)
      key=$(echo "$line" | awk -v p="$pass" '{ print (p == "none") ? $3 + $4 : $1 }')
      if [ -z "$best" ] || awk -v a="$key" -v b="$bestkey" 'BEGIN { exit !(a < b) }'; then best=$line; bestkey=$key; fi
    done
    echo "$best" | awk -v n="$n" -v p="$pass" '{ printf "%-9s %-5s %9.3f %12.0f %8.2f %8.2f %10d %10.0f %9.0f\n", n, p, $1, ($1 > 0 ? $2 / $1 : 0), $3, $4, $5, $6 / 1024, $6 * 1024 / n }'
  done
  if [ "${MLIR:-1}" = 1 ] && command -v mlir-opt-19 >/dev/null; then
    "$bin" "$n" "$tmp/g.mlir" none > /dev/null
    echo 'func.func @main() { return }' > "$tmp/empty.mlir"
    /usr/bin/time -f '%e' -o "$tmp/t0" mlir-opt-19 --canonicalize --cse --symbol-dce "$tmp/empty.mlir" > /dev/null
    bestm=""
    for _ in $(seq "$runs"); do
      /usr/bin/time -f '%e %M' -o "$tmp/tm" mlir-opt-19 --canonicalize --cse --symbol-dce "$tmp/g.mlir" -o "$tmp/out.mlir"
      t=$(cut -d' ' -f1 "$tmp/tm")
      if [ -z "$bestm" ] || awk -v a="$t" -v b="$bestm" 'BEGIN { exit !(a < b) }'; then bestm=$t; rssm=$(cut -d' ' -f2 "$tmp/tm"); fi
    done
    awk -v n="$n" -v t="$bestm" -v s="$(cat "$tmp/t0")" -v r="$rssm" 'BEGIN { d = t - s; if (d < 1e-3) d = 1e-3; printf "%-9s %-5s %9.3f %12.0f %38s %9.0f  (mlir-opt-19, start-up %.3fs subtracted)\n", n, "mlir", t, n / d, "", r * 1024 / n, s }'
    rm -f "$tmp/g.mlir" "$tmp/out.mlir"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
