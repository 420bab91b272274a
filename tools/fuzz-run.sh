#!/bin/sh
# Runs one libFuzzer target over a scratch copy of its seeds, and leaves what
# it finds where a person (or CI's log tail) can see it.
#
#   tools/fuzz-run.sh EXE SECONDS SEED ARTIFACTS SEEDS...
#
# SEED is libFuzzer's -seed: a number makes the run repeatable (ctest uses 1,
# so a CI failure is the change's, not the dice's, and replays locally), and
# `random` draws a new one (the long runs of `make fuzz`, which explore).
# SEEDS are files or folders whose files seed the corpus; a folder given as
# `keep:DIR` is used in place (new inputs are kept there, for long runs that
# resume). A crash, leak, timeout or out-of-memory input is copied to
# ARTIFACTS/ and one line naming it and the command that replays it is
# printed last, so it survives any truncation of the log above it.
# The final statistics line reads:
#   fuzz-stats NAME seconds=S runs=N cov=C ft=F corpus=K status=ok|crash
set -u
exe=$1 seconds=$2 seed=$3 artifacts=$4
shift 4
name=$(basename "$exe")
mkdir -p "$artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
corpus="$scratch/corpus"
mkdir -p "$corpus"
i=0
for src in "$@"; do
  case $src in
    keep:*) corpus=${src#keep:}; mkdir -p "$corpus"; continue ;;
  esac
  if [ -d "$src" ]; then
    for f in "$src"/*; do
      [ -f "$f" ] || continue
      i=$((i + 1)); cp "$f" "$corpus/seed$i"
    done
  elif [ -f "$src" ]; then
    i=$((i + 1)); cp "$src" "$corpus/seed$i"
  fi
done
seed_flag=
[ "$seed" = random ] || seed_flag="-seed=$seed"
echo "$name: $i seed files, seed $seed, $seconds s"
log="$scratch/log"
start=$(date +%s)
"$exe" $seed_flag -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
  -print_final_stats=1 -artifact_prefix="$scratch/" "$corpus" > "$log" 2>&1
status=$?
end=$(date +%s)
cat "$log"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
files=$(ls "$corpus" | wc -l)
verdict=ok
[ $status -eq 0 ] || verdict=crash
echo "fuzz-stats $name seconds=$((end - start)) runs=${runs:-?} cov=${cov:-?} ft=${ft:-?} corpus=$files status=$verdict"
if [ $status -ne 0 ]; then
  reason=$(grep -m 1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_[a-z]+: )' "$log")
  echo "FUZZ FAILURE $name: ${reason:-exit $status}"
  for f in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-* "$scratch"/slow-unit-*; do
    [ -f "$f" ] || continue
    kept="$artifacts/$name-$(basename "$f")"
    cp "$f" "$kept"
    echo "  input $kept (replay: $exe $kept)"
    # CI keeps only its log: the input itself, when small, goes in it too.
    [ "$(wc -c < "$f")" -le 4096 ] && echo "  base64 $(base64 -w 0 "$f")"
  done
fi
exit $status
