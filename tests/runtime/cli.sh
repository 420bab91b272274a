#!/bin/sh
# passage run OUT.so and passage bench OUT.so on the hand-written fixtures
# (tests/runtime/fixtures, built by cmake/runtime.cmake): outputs, the
# output format, and every error a user can meet, each with its message.
#   usage: cli.sh PASSAGE FIXTURE_DIR WORK_DIR
set -u
PASSAGE=$1 FIX=$2 WORK=$3
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

# expect CODE TEXT CMD...: CMD exits with CODE and its stdout+stderr contains TEXT.
expect() {
  code=$1 text=$2
  shift 2
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -ne "$code" ] || { [ -n "$text" ] && ! printf '%s\n' "$out" | grep -qF -- "$text"; }; then
    echo "FAIL: $* (exit $got, want $code and '$text'):"
    printf '%s\n' "$out" | sed 's/^/  | /'
    fails=$((fails + 1))
  else
    echo "ok   $*"
  fi
}

$PY -c '
import numpy as np, struct
np.save("x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
np.save("y.npy", np.full((2, 3), 0.5, dtype=np.float32))
np.save("y64.npy", np.zeros((2, 3)))
np.save("y32.npy", np.zeros((3, 2), dtype=np.float32))
np.save("p.npy", np.array([1, -2, 3, 0], dtype=np.float32))
open("params.bin", "wb").write(b"PSGFIXP1" + struct.pack("<8f", 1, 2, 3, 4, 0.5, 0.5, 0.5, 0.5))
' || exit 1
cp "$FIX/params.so" params.so

# Runs and outputs.
expect 0 "" "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input y=y.npy -o out.npy
$PY -c 'import numpy as np; o = np.load("out.npy"); assert o.dtype == np.float32 and (o == np.arange(6).reshape(2, 3) + 1).all(), o' \
  || { echo "FAIL: add.so output"; fails=$((fails + 1)); }
expect 0 "output 0: float32 (2, 3) sum=21 first=[1, 2, 3, 4, 5, ...]" "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input y=y.npy
expect 0 "output 0: float32 (2, 3)" "$PASSAGE" run "$FIX/add.so" --input x=x.npy --random-inputs 3
expect 0 "" "$PASSAGE" run params.so --input x=p.npy -o pout.npy
$PY -c '
import numpy as np
a, b = np.load("pout_0.npy"), np.load("pout_1.npy")
assert (a == np.array([1.5, -3.5, 9.5, 0.5], dtype=np.float32)).all(), a
assert b.dtype == np.int64 and b.tolist() == [2], b' || { echo "FAIL: params.so outputs"; fails=$((fails + 1)); }
expect 0 "output 1: int64 (1)" "$PASSAGE" run params.so --input x=p.npy --params params.bin
expect 0 "output 0: float32 (2, 3)" "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input y=y.npy --input-shape x=2,3
expect 0 "usage: passage run OUT.so" "$PASSAGE" run "$FIX/add.so" --help

# Errors.
expect 1 "passage run: no value for input 'y' (give --input y=FILE.npy or --random-inputs SEED)" \
  "$PASSAGE" run "$FIX/add.so" --input x=x.npy
expect 1 "has no input named 'yy'; did you mean 'y'? (its inputs: x, y)" \
  "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input yy=y.npy
expect 1 "input 'y' must be float32 (2, 3), but float64 (2, 3) was given" \
  "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input y=y64.npy
expect 1 "input 'y' must be float32 (2, 3), but float32 (3, 2) was given" \
  "$PASSAGE" run "$FIX/add.so" --input x=x.npy --input y=y32.npy
expect 1 "the model was compiled for input 'x' of shape (2, 3); --input-shape x=1,3 cannot change it" \
  "$PASSAGE" run "$FIX/add.so" --random-inputs 1 --input-shape x=1,3
expect 1 "is not a Passage model: it has no passage_model_entry" "$PASSAGE" run "$FIX/not_model.so" --random-inputs 1
expect 1 "was compiled for model ABI version 99; this Passage loads version 1" "$PASSAGE" run "$FIX/bad_abi.so"
$PY -c 'import numpy as np; np.save("neg.npy", np.array([-1, 0, 1]))'
expect 1 "the model's run failed with code 7" "$PASSAGE" run "$FIX/fail.so" --input x=neg.npy
expect 1 "needs its parameters file ./nothere.bin (40 bytes), which cannot be opened" \
  "$PASSAGE" run params.so --input x=p.npy --params ./nothere.bin
head -c 39 params.bin > short.bin
expect 1 "parameters file short.bin has 39 bytes, but ./params.so expects 40" \
  "$PASSAGE" run params.so --input x=p.npy --params short.bin
expect 2 "--config is not for a compiled model" "$PASSAGE" run "$FIX/add.so" --config a=b

# bench.
expect 0 "latency over 5 runs (after 3 warmup): median " "$PASSAGE" bench "$FIX/add.so" --runs 5
expect 0 "threads: 1 (built without OpenMP: single-threaded; --threads ignored)" \
  "$PASSAGE" bench "$FIX/add.so" --runs 3 --threads 4
expect 0 "workspace: 24 bytes (intermediates without reuse: 24 bytes), parameters: 0 bytes" \
  "$PASSAGE" bench "$FIX/add.so" --runs 3
expect 0 "time per op kind (the anchor op of each kernel)" "$PASSAGE" bench "$FIX/add.so" --runs 3 --profile
expect 0 "tvmgen_default_fused_multiply                                   3" \
  "$PASSAGE" bench "$FIX/add.so" --runs 3 --profile
expect 0 "greater_sum_cast" "$PASSAGE" bench params.so --runs 2 --profile --input x=p.npy
expect 1 "the profile hook was called for kernel 5" "$PASSAGE" bench "$FIX/fail.so" --runs 2 --profile
expect 1 "the model's run failed with code 7" "$PASSAGE" bench "$FIX/fail.so" --input x=neg.npy
expect 2 "--runs takes a number >= 1, not '0'" "$PASSAGE" bench "$FIX/add.so" --runs 0
expect 1 "is not a Passage model" "$PASSAGE" bench "$FIX/not_model.so"
if [ -f "$FIX/add_omp.so" ]; then
  expect 0 "threads: 2 (OpenMP)" "$PASSAGE" bench "$FIX/add_omp.so" --runs 3 --threads 2
fi
"$PASSAGE" bench "$FIX/add.so" --runs 4 --warmup 1 --profile --json > bench.json
$PY -c '
import json
b = json.load(open("bench.json"))
assert b["runs"] == 4 and b["warmup"] == 1 and b["name"] == "add" and b["kernel_calls"] == 2, b
assert 0 <= b["min_ms"] <= b["median_ms"] <= b["p90_ms"] <= b["max_ms"], b
assert sorted(k["name"] for k in b["kernels"]) == ["tvmgen_default_fused_add", "tvmgen_default_fused_multiply"], b
assert sorted(k["name"] for k in b["op_kinds"]) == ["add", "multiply"], b
assert all(k["calls"] == 4 for k in b["kernels"]), b
assert abs(sum(k["share"] for k in b["op_kinds"]) - 1) < 1e-3 or b["kernel_ms_per_run"] == 0, b
' || { echo "FAIL: bench --json"; fails=$((fails + 1)); }

# A real model end to end: passage compile, then the library against the
# interpreter, its parameters in a side file, bench's profile by op kind.
if "$PASSAGE" compile --help > /dev/null 2>&1; then
  CNN=$ROOT/examples/models/small_cnn.relay
  expect 0 "" "$PASSAGE" compile "$CNN" -o cnn.so
  expect 0 "" "$PASSAGE" run cnn.so --random-inputs 7 -o cnn_out.npy
  expect 0 "" "$PASSAGE" run "$CNN" --random-inputs 7 -o interp_out.npy
  $PY -c '
import numpy as np
a, b = np.load("cnn_out.npy"), np.load("interp_out.npy")
assert a.shape == b.shape and np.abs(a - b).max() <= 1e-5, (a, b)' || { echo "FAIL: compiled small_cnn vs the interpreter"; fails=$((fails + 1)); }
  expect 0 "nn.conv2d (1)" "$PASSAGE" bench cnn.so --runs 3 --profile
  expect 0 "" "$PASSAGE" compile "$CNN" --target "c -link-params=0" -o cnn_p.so
  expect 0 "" "$PASSAGE" run cnn_p.so --random-inputs 7 -o cnn_p_out.npy
  cmp -s cnn_out.npy cnn_p_out.npy || { echo "FAIL: the side-file build's output differs"; fails=$((fails + 1)); }
  mv cnn_p.bin elsewhere.bin
  expect 1 "cnn_p.so needs its parameters file ./cnn_p.bin" "$PASSAGE" run cnn_p.so --random-inputs 7
  expect 0 "output 0: float32 (1, 10)" "$PASSAGE" run cnn_p.so --random-inputs 7 --params elsewhere.bin
  cp elsewhere.bin other.bin && printf 'X' | dd of=other.bin bs=1 count=1 conv=notrunc 2> /dev/null
  expect 1 "rejects parameters file other.bin (set_params returned" "$PASSAGE" run cnn_p.so --random-inputs 7 \
    --params other.bin
fi

echo "$fails failed"
[ "$fails" -eq 0 ]
