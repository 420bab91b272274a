#!/usr/bin/python3
"""ONNX backend conformance for Passage (issue 6): for every test of Debian's
libonnx-testdata (node, pytorch-converted, pytorch-operator, simple) whose ops
are all supported, import the model, run it with `passage run` (the reference
interpreter) on test_data_set_*, and compare with the expected outputs using
the ONNX backend tests' tolerances (rtol 1e-3, atol 1e-7). Prints a summary
per op; exits 1 if a supported test fails and is not in the known-failures
list. Inputs that the model uses as shapes (Reshape's shape, Slice's starts)
are frozen into initializers from the test data when the plain import says
they must be constant; such tests are counted as "frozen".
Run with /usr/bin/python3 (it needs python3-onnx and numpy)."""
import argparse, collections, glob, os, subprocess, sys, tempfile

import numpy as np
import onnx
from onnx import numpy_helper

import parallel

SUPPORTED = {
    "Relu", "Sigmoid", "Sqrt", "Log", "Neg", "Exp", "Tanh", "Abs", "Add", "Sub", "Mul", "Div", "Equal",
    "Greater", "GreaterOrEqual", "Less", "Max", "Min", "Pow", "Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "Identity",
    "Cast", "ReduceMean", "ReduceMax", "Softmax", "Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization",
    "MaxPool", "AveragePool", "GlobalAveragePool", "LSTM", "Reshape", "Flatten", "Transpose", "Squeeze",
    "Unsqueeze", "Concat", "Expand", "Slice", "Gather", "Shape", "Constant", "ConstantOfShape", "Pad", "Resize", "If",
    "Split",
}
SETS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
ROOT = "/usr/share/libonnx-testdata/data"


def model_ops(graph, acc):
    for n in graph.node:
        acc.add(n.op_type if n.domain in ("", "ai.onnx") else n.domain + "." + n.op_type)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                model_ops(a.g, acc)
    return acc


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t), t.name


def run(cmd, timeout=300):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


def freeze(model_path, inputs, tmp, keep_first=True):
    """A copy of the model with every input (but the first, unless
    keep_first is False) turned into initializers."""
    m = onnx.load(model_path)
    frozen = []
    keep = []
    for i, vi in enumerate(m.graph.input):
        names = {x.name for x in m.graph.initializer}
        if vi.name in names:
            continue
        arr = inputs.get(vi.name)
        if arr is not None and (keep or not keep_first):
            m.graph.initializer.append(numpy_helper.from_array(arr, vi.name))
            frozen.append(vi.name)
        else:
            keep.append(vi)
    del m.graph.input[:]
    m.graph.input.extend(keep)
    path = os.path.join(tmp, "frozen.onnx")
    onnx.save(m, path)
    return path, frozen


def import_frozen(passage, model_path, inputs, tmp):
    """Imports the model; when the importer says an input must be a
    constant, freezes the inputs into initializers (the first last) and
    drops them from `inputs`. Returns (rc, output, model path, frozen?)."""
    path, frozen = model_path, False
    rc, out = run([passage, "import", path, "-o", os.path.join(tmp, "m.relay")])
    if rc != 0 and "must be a constant" in out:
        path, names = freeze(model_path, inputs, tmp)
        for name in names:
            inputs.pop(name, None)
        frozen = True
        rc, out = run([passage, "import", path, "-o", os.path.join(tmp, "m.relay")])
        if rc != 0 and "must be a constant" in out:
            path, more = freeze(path, inputs, tmp, keep_first=False)
            for name in more:
                inputs.pop(name, None)
            rc, out = run([passage, "import", path, "-o", os.path.join(tmp, "m.relay")])
    return rc, out, path, frozen


def import_failure(out):
    """(status, detail) of a failed import."""
    last = out.strip().splitlines()[-1] if out.strip() else "import failed"
    # The importer itself declares the variant unsupported (1-D/3-D
    # convolutions, training mode, strings): not a conformance failure.
    if "not supported" in last or "unsupported" in last:
        return "unsupported", last
    return "fail", "import: " + last


def read_dataset(ds, graph_inputs):
    """({input name: array}, [expected output arrays]) of one test_data_set_*."""
    inputs = {}
    for k, f in enumerate(sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda p: int(p.split("_")[-1][:-3]))):
        arr, name = load_pb(f)
        inputs[name or graph_inputs[k]] = arr
    expected = [load_pb(f)[0] for f in sorted(glob.glob(os.path.join(ds, "output_*.pb")),
                                              key=lambda p: int(p.split("_")[-1][:-3]))]
    return inputs, expected


def supported_tests(sets, only):
    """(todo, unsupported count, per-op unsupported counts): the tests of `sets`
    whose name contains `only` and whose ops are all in SUPPORTED, as
    (name, test_dir, ops)."""
    todo, unsupported, per_op = [], 0, collections.defaultdict(int)
    for s in sets:
        for test_dir in sorted(glob.glob(os.path.join(ROOT, s, "test_*"))):
            name = s + "/" + os.path.basename(test_dir)
            if only not in name or not os.path.exists(os.path.join(test_dir, "model.onnx")):
                continue
            try:
                ops = model_ops(onnx.load(os.path.join(test_dir, "model.onnx")).graph, set())
            except Exception:  # a model python-onnx cannot read
                unsupported += 1
                continue
            if not ops or not ops <= SUPPORTED:
                unsupported += 1
                for op in ops - SUPPORTED:
                    per_op[op] += 1
                continue
            todo.append((name, test_dir, ops))
    return todo, unsupported, per_op


def read_known(path):
    """{test name: reason} of a known-failures file."""
    known = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)
            name = line[0].strip()
            if name:
                known[name] = line[1].strip() if len(line) > 1 else ""
    return known


def check_one(passage, test_dir, tmp):
    """Returns (status, detail): status in pass, frozen, fail."""
    model_path = os.path.join(test_dir, "model.onnx")
    m = onnx.load(model_path)
    graph_inputs = [i.name for i in m.graph.input if i.name not in {x.name for x in m.graph.initializer}]
    out_names = [o.name for o in m.graph.output]
    datasets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not datasets:
        return "fail", "no test data"
    status = "pass"
    for ds in datasets:
        inputs, expected = read_dataset(ds, graph_inputs)
        rc, out, path, frozen = import_frozen(passage, model_path, inputs, tmp)
        if frozen:
            status = "frozen"
        if rc != 0:
            return import_failure(out)
        cmd = [passage, "run", path, "-o", os.path.join(tmp, "out.npy")]
        for name, arr in inputs.items():
            p = os.path.join(tmp, "in_%d.npy" % len(cmd))
            np.save(p, arr)
            cmd += ["--input", "%s=%s" % (name, p)]
        rc, out = run(cmd)
        if rc != 0:
            return "fail", "run: " + (out.strip().splitlines()[-1] if out.strip() else "failed")
        for k, exp in enumerate(expected):
            p = os.path.join(tmp, "out.npy") if len(expected) == 1 else os.path.join(tmp, "out_%d.npy" % k)
            if not os.path.exists(p):
                return "fail", "missing output %d (%s)" % (k, out_names[k] if k < len(out_names) else "?")
            got = np.load(p)
            if got.shape != exp.shape:
                return "fail", "output %d shape %s, expected %s" % (k, got.shape, exp.shape)
            if exp.dtype.kind in "fc":
                ok = np.allclose(got.astype(np.float64), exp.astype(np.float64), rtol=1e-3, atol=1e-7, equal_nan=True)
            else:
                ok = np.array_equal(got, exp)
            if got.dtype != exp.dtype:
                return "fail", "output %d dtype %s, expected %s" % (k, got.dtype, exp.dtype)
            if not ok:
                err = np.max(np.abs(got.astype(np.float64) - exp.astype(np.float64))) if got.size else 0
                return "fail", "output %d differs (max abs err %.3g)" % (k, err)
    return status, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--known-failures", default=None)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("-k", default="", help="only tests whose name contains this")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    known = read_known(args.known_failures)
    per_op = collections.defaultdict(collections.Counter)
    totals = collections.Counter()
    failures = []
    variants = []
    todo, totals["unsupported"], unsupported_ops = supported_tests(args.sets.split(","), args.k)
    for op, n in unsupported_ops.items():
        per_op[op]["unsupported"] += n

    def check_in(item, tmp):
        try:
            return check_one(args.passage, item[1], tmp)
        except subprocess.TimeoutExpired:
            return "fail", "timeout"
        except ValueError as e:  # test data python-onnx cannot read as tensors
            return "unsupported", "test data: %s" % e

    for (name, test_dir, ops), (status, detail) in zip(todo, parallel.map_in_tmp(check_in, todo)):
        if status == "fail" and name in known:
            status = "known"
        totals[status] += 1
        for op in ops:
            per_op[op][status] += 1
        if status == "fail":
            failures.append((name, detail))
        if status == "unsupported":
            variants.append((name, detail))
        if args.v or status == "fail":
            print("%-7s %s %s" % (status.upper(), name, detail), flush=True)
    if variants:
        print("\nsupported ops, variants the importer reports as unsupported:")
        for name, detail in variants:
            print("  %s: %s" % (name, detail.split("): ", 1)[-1]))
    print("\nper op (pass / frozen / fail / known / unsupported):")
    for op in sorted(per_op):
        c = per_op[op]
        print("  %-20s %4d %4d %4d %4d %4d" % (op, c["pass"], c["frozen"], c["fail"], c["known"], c["unsupported"]))
    print("\ntotal: %d passed, %d passed with frozen shape inputs, %d failed, %d known failures, %d unsupported"
          % (totals["pass"], totals["frozen"], totals["fail"], totals["known"], totals["unsupported"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
