#!/bin/sh
# Prints the seed files and folders of one fuzz target, one per line:
#   tools/fuzz-seeds.sh NAME [ROOT]
# Its committed corpus (tests/fuzz/corpus/NAME) when there is one, and for
# the ONNX importer the inputs nothing commits: every node model of Debian's
# libonnx-testdata, the real models of tests/models/cache up to the fuzzer's
# 2 MiB input limit, and the hostile ONNX corpus. Used by ctest's fuzz.onnx
# and by `make fuzz`, so both start from the same seeds.
set -u
name=$1
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/tests/fuzz/corpus/$name" ] && echo "$root/tests/fuzz/corpus/$name"
if [ "$name" = onnx ]; then
  for f in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
    [ -f "$f" ] && echo "$f"
  done
  find -L "$root/tests/models/cache" -name '*.onnx' -size -2048k -not -path '*/node_modules/*' 2>/dev/null
  for f in "$root"/tests/bad/onnx/*.onnx; do
    [ -f "$f" ] && echo "$f"
  done
fi
exit 0
