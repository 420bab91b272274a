#!/usr/bin/python3
"""ONNX round trip for Passage (issue 6): for every backend test (Debian's
libonnx-testdata) that Passage imports, export the module with
`passage import model.onnx -o out.onnx`, validate it with
onnx.checker.check_model(full_check=True), import the export again, run both
with `passage run` on test_data_set_0 and require the same outputs (bitwise
for the same kernels; a tolerance of 1e-6 relative covers rewritten graphs).
Exits 1 on any failure. Run with /usr/bin/python3."""
import argparse, glob, os, subprocess, sys

import parallel

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_backend_tests import ROOT, SUPPORTED, load_pb, model_ops, run  # noqa: E402


def run_model(passage, path, inputs, tmp, tag):
    cmd = [passage, "run", path, "-o", os.path.join(tmp, tag + ".npy")]
    for name, arr in inputs.items():
        p = os.path.join(tmp, "%s_in_%d.npy" % (tag, len(cmd)))
        np.save(p, arr)
        cmd += ["--input", "%s=%s" % (name, p)]
    rc, out = run(cmd)
    if rc != 0:
        return None, out.strip().splitlines()[-1] if out.strip() else "run failed"
    files = sorted(glob.glob(os.path.join(tmp, tag + "*.npy")))
    files = [f for f in files if "_in_" not in f]
    return [np.load(f) for f in files], ""


def check(passage, test_dir, tmp):
    model = os.path.join(test_dir, "model.onnx")
    rc, out = run([passage, "import", model, "-o", os.path.join(tmp, "a.relay")])
    if rc != 0:
        return "skip", "does not import"
    exported = os.path.join(tmp, "exported.onnx")
    rc, out = run([passage, "import", model, "-o", exported])
    if rc != 0:
        last = out.strip().splitlines()[-1] if out.strip() else "export failed"
        if "no ONNX form" in last or "not exported" in last:
            return "skip", last
        return "fail", "export: " + last
    try:
        onnx.checker.check_model(onnx.load(exported), full_check=True)
    except Exception as e:  # the checker's own exception types vary by version
        return "fail", "onnx.checker: %s" % str(e).splitlines()[0]
    rc, out = run([passage, "import", exported, "-o", os.path.join(tmp, "b.relay")])
    if rc != 0:
        return "fail", "re-import: " + (out.strip().splitlines()[-1] if out.strip() else "")
    ds = os.path.join(test_dir, "test_data_set_0")
    m = onnx.load(model)
    graph_inputs = [i.name for i in m.graph.input if i.name not in {x.name for x in m.graph.initializer}]
    inputs = {}
    for k, f in enumerate(sorted(glob.glob(os.path.join(ds, "input_*.pb")))):
        arr, name = load_pb(f)
        inputs[name or graph_inputs[k]] = arr
    a, err = run_model(passage, model, inputs, tmp, "orig")
    if a is None:
        return "skip", "original does not run: " + err
    b, err = run_model(passage, exported, inputs, tmp, "rt")
    if b is None:
        return "fail", "exported model does not run: " + err
    if len(a) != len(b):
        return "fail", "%d outputs, then %d" % (len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return "fail", "output %d: %s %s, then %s %s" % (i, x.dtype, x.shape, y.dtype, y.shape)
        if x.dtype.kind == "f":
            ok = np.allclose(x, y, rtol=1e-6, atol=0, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        if not ok:
            return "fail", "output %d differs after the round trip" % i
    return "pass", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--sets", default="node,pytorch-converted,pytorch-operator,simple")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    counts = {"pass": 0, "fail": 0, "skip": 0}
    todo = []
    for s in args.sets.split(","):
        for test_dir in sorted(glob.glob(os.path.join(ROOT, s, "test_*"))):
            if not os.path.exists(os.path.join(test_dir, "model.onnx")):
                continue
            try:
                ops = model_ops(onnx.load(os.path.join(test_dir, "model.onnx")).graph, set())
            except Exception:
                continue
            if ops and ops <= SUPPORTED:
                todo.append((s, test_dir))

    def check_in(item, tmp):
        try:
            return check(args.passage, item[1], tmp)
        except (ValueError, subprocess.TimeoutExpired) as e:
            return "skip", str(e)

    for (s, test_dir), (status, detail) in zip(todo, parallel.map_in_tmp(check_in, todo)):
        counts[status] += 1
        if status == "fail" or args.v:
            print("%-5s %s/%s %s" % (status.upper(), s, os.path.basename(test_dir), detail), flush=True)
    print("\nround trip: %d passed, %d failed, %d skipped (not importable, not runnable, or no ONNX form)"
          % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] or counts["pass"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
