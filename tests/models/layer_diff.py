#!/usr/bin/python3
"""Where a real model's difference to ONNX Runtime comes from (issue 6): every
node output of one run_e2e.py model (same inputs as the full run) is made a
graph output, computed three ways -- ONNX Runtime (float32, optimizations
disabled), `passage run` (float32) and `passage run` on the model converted to
float64 (our kernels accumulate float64 in double: the near-exact reference) --
and printed with ours-ORT, ORT-f64 and ours-f64, each max |difference| over
max |f64|. Float initializers, Constant tensors and the input become float64,
except Resize's scales/roi (float32 by the ONNX spec). Single-output, float32-
input models only. Usage:
  tests/models/layer_diff.py --passage BUILD/passage --only det [--worst N]
Run with /usr/bin/python3."""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_e2e import HERE, draw_inputs  # noqa: E402


def all_outputs(m):
    outs = [(o, n.op_type, n.name or o) for n in m.graph.node if n.op_type != "Constant" for o in n.output if o]
    del m.graph.output[:]
    m.graph.output.extend(helper.make_empty_tensor_value_info(o) for o, _, _ in outs)
    return outs


def to_float64(m):
    keep = {i for n in m.graph.node if n.op_type == "Resize" for i in n.input[1:]}
    for t in m.graph.initializer:
        if t.data_type == TensorProto.FLOAT and t.name not in keep:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name))
    for n in m.graph.node:
        for a in n.attribute:
            if n.op_type == "Constant" and n.output[0] not in keep and a.t.data_type == TensorProto.FLOAT:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float64)))
            if n.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.DOUBLE
    for i in m.graph.input:
        if i.type.tensor_type.elem_type == TensorProto.FLOAT:
            i.type.tensor_type.elem_type = TensorProto.DOUBLE


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", required=True, help="a run_e2e.py model name (substring)")
    ap.add_argument("--worst", type=int, default=0, help="print only the N outputs with the largest ours-ORT")
    args = ap.parse_args()
    picked = [d for d in draw_inputs() if args.only in d[2]]
    if not picked:
        print("no run_e2e.py model matches %r" % args.only)
        return 1
    model, inputs, shown, arrays = picked[0]
    with tempfile.TemporaryDirectory() as tmp:
        m = onnx.load(model)
        outs = all_outputs(m)
        p32, p64 = os.path.join(tmp, "all32.onnx"), os.path.join(tmp, "all64.onnx")
        onnx.save(m, p32)
        to_float64(m)
        onnx.save(m, p64)
        spec, run32, run64 = {}, [], []
        for iname, arr in arrays.items():
            f = os.path.join(tmp, iname)
            arr.tofile(f + ".bin")
            np.save(f + ".npy", arr)
            np.save(f + "64.npy", arr.astype(np.float64) if arr.dtype == np.float32 else arr)
            spec[iname] = {"type": str(arr.dtype), "dims": list(arr.shape), "file": f + ".bin"}
            shape = ["--input-shape", "%s=%s" % (iname, ",".join(map(str, arr.shape)))]
            run32 += ["--input", "%s=%s.npy" % (iname, f)] + shape
            run64 += ["--input", "%s=%s64.npy" % (iname, f)] + shape
        json.dump(spec, open(os.path.join(tmp, "in.json"), "w"))
        for d in ("ort", "o32", "o64"):
            os.mkdir(os.path.join(tmp, d))
        subprocess.run(["node", os.path.join(HERE, "ort_run.js"), p32, os.path.join(tmp, "in.json"), os.path.join(tmp, "ort")],
                       check=True, stderr=subprocess.DEVNULL)
        subprocess.run([args.passage, "run", p32, "-o", os.path.join(tmp, "o32", "o.npy")] + run32, check=True)
        subprocess.run([args.passage, "run", p64, "-o", os.path.join(tmp, "o64", "o.npy")] + run64, check=True)
        meta = json.load(open(os.path.join(tmp, "ort", "outputs.json")))
        rows = []
        for k, (o, op, name) in enumerate(outs):
            r = np.fromfile(meta[k]["file"], dtype=meta[k]["type"]).reshape(meta[k]["dims"]).astype(np.float64)
            a = np.load(os.path.join(tmp, "o32", "o_%d.npy" % k)).astype(np.float64)
            e = np.load(os.path.join(tmp, "o64", "o_%d.npy" % k)).astype(np.float64)
            den = max(float(np.abs(e).max()), 1e-30)
            rows.append((k, op, name, r.shape, np.abs(a - r).max() / den, np.abs(r - e).max() / den, np.abs(a - e).max() / den))
    print("%s: %d node outputs; errors are max|difference| / max|float64|" % (shown, len(rows)))
    if args.worst:
        rows = sorted(rows, key=lambda x: -x[4])[:args.worst]
    for k, op, name, shape, ao, oe, ae in rows:
        print("%4d %-18s %-28s %-20s ours-ORT %.2e  ORT-f64 %.2e  ours-f64 %.2e" % (k, op, name[:28], str(shape), ao, oe, ae))
    return 0


if __name__ == "__main__":
    sys.exit(main())
