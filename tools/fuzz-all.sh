#!/bin/sh
# `make fuzz`: every built fuzz target for MINUTES each with a random seed,
# one after another, over a corpus kept in BUILD/fuzz-corpus/NAME (so runs
# resume where the last one stopped), then a table of what each run did.
#   tools/fuzz-all.sh BUILD MINUTES [NAME...]
# Inputs that fail are saved in BUILD/fuzz/artifacts; add each to the target's
# corpus (tests/fuzz/corpus/NAME) with the fix.
set -u
build=$1 minutes=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
names=$*
if [ -z "$names" ]; then
  for exe in "$build"/fuzz/fuzz_*; do
    [ -x "$exe" ] && names="$names ${exe##*/fuzz_}"
  done
fi
[ -n "$names" ] || { echo "fuzz-all: no fuzz targets in $build/fuzz (is clang-14 installed?)" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
failed=0
for name in $names; do
  exe="$build/fuzz/fuzz_$name"
  [ -x "$exe" ] || { echo "fuzz-all: no target $exe" >&2; exit 1; }
  keep="$build/fuzz-corpus/$name"
  # shellcheck disable=SC2046 # one seed path per line, none with spaces
  "$root/tools/fuzz-run.sh" "$exe" $((minutes * 60)) random "$build/fuzz/artifacts" \
    "keep:$keep" $("$root/tools/fuzz-seeds.sh" "$name" "$root") > "$build/fuzz/$name.log" 2>&1 || failed=1
  grep -E '^(fuzz-stats|FUZZ FAILURE|  input)' "$build/fuzz/$name.log" | tee -a "$table"
done
echo
echo "| target | minutes | executions | cov | ft | corpus | status |"
echo "|---|---:|---:|---:|---:|---:|---|"
sed -n 's/^fuzz-stats fuzz_\([^ ]*\) seconds=\([0-9]*\) runs=\([^ ]*\) cov=\([^ ]*\) ft=\([^ ]*\) corpus=\([^ ]*\) status=\(.*\)/| \1 | \2 | \3 | \4 | \5 | \6 | \7 |/p' "$table" |
  awk -F'|' 'BEGIN{OFS="|"} {$3=sprintf(" %.1f ", $3/60); print}'
exit $failed
