#!/usr/bin/python3
"""ONNX LSTM kept whole (docs/design.md, the Composite="onnx.LSTM" decision):
small LSTM models built with onnx.helper (sequence length 3; with and without
initial states, only initial_h, B absent, reverse and bidirectional, outputs
partly unused) must import, run in Passage's interpreter and match a NumPy
reference; their -O0 and -O3 exports must hold exactly one LSTM node (named
as the original) and no other compute node, and run in ONNX Runtime (when
tools/fetch-models.sh fetched it) and in our interpreter to the same values
(1e-5 relative); a W of the wrong size is an error naming the node.
Exits 1 on any failure. Run with /usr/bin/python3."""
import argparse, json, os, subprocess, sys, tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "..", "models", "ort_run.js")
ORT_DIR = os.path.join(HERE, "..", "models", "cache", "node_modules", "onnxruntime-node")
SEQ, BATCH, INP, HID = 3, 2, 4, 5


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def reference(x, w, r, b, h0, c0, direction):
    """ONNX LSTM (default activations, no peepholes) in float64."""
    ndir = w.shape[0]
    ys, hs, cs = [], [], []
    for d in range(ndir):
        h, c = h0[d].astype(np.float64), c0[d].astype(np.float64)
        bias = b[d, :4 * HID] + b[d, 4 * HID:]
        y = [None] * SEQ
        rev = direction == "reverse" or d == 1
        for t in (reversed(range(SEQ)) if rev else range(SEQ)):
            g = x[t] @ w[d].T + h @ r[d].T + bias
            i, o, f, cc = np.split(g, 4, axis=1)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
            h = sigmoid(o) * np.tanh(c)
            y[t] = h
        ys.append(np.stack(y))
        hs.append(h)
        cs.append(c)
    return [np.stack(ys, axis=1), np.stack(hs), np.stack(cs)]


def build(path, rng, has_b, init, direction, outputs):
    """init: which initial states are given ("hc", "h" or ""), as graph inputs."""
    ndir = 2 if direction == "bidirectional" else 1
    w = rng.standard_normal((ndir, 4 * HID, INP)).astype(np.float32) * 0.5
    r = rng.standard_normal((ndir, 4 * HID, HID)).astype(np.float32) * 0.5
    b = rng.standard_normal((ndir, 8 * HID)).astype(np.float32) * 0.5 if has_b else np.zeros((ndir, 8 * HID), np.float32)
    feeds = {"X": rng.standard_normal((SEQ, BATCH, INP)).astype(np.float32)}
    zeros = np.zeros((ndir, BATCH, HID), np.float32)
    h0 = rng.standard_normal((ndir, BATCH, HID)).astype(np.float32) if "h" in init else zeros
    c0 = rng.standard_normal((ndir, BATCH, HID)).astype(np.float32) if "c" in init else zeros
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R")]
    ins = ["X", "W", "R", "B" if has_b else ""]
    if has_b:
        inits.append(numpy_helper.from_array(b, "B"))
    gin = [helper.make_tensor_value_info("X", TensorProto.FLOAT, [SEQ, BATCH, INP])]
    for name, val in (("initial_h", h0), ("initial_c", c0)):
        if name[-1] in init:
            feeds[name] = val
            gin.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(val.shape)))
    if init:
        ins += ["", "initial_h" if "h" in init else "", "initial_c" if "c" in init else ""]
    while ins[-1] == "":
        ins.pop()
    names = ["Y", "Y_h", "Y_c"]
    node = helper.make_node("LSTM", ins, [n if n in outputs else "" for n in names], hidden_size=HID, direction=direction,
                            name="lstm1")
    while node.output[-1] == "":
        node.output.pop()
    shapes = {"Y": [SEQ, ndir, BATCH, HID], "Y_h": [ndir, BATCH, HID], "Y_c": [ndir, BATCH, HID]}
    gout = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in names if n in outputs]
    graph = helper.make_graph([node], "lstm", gin, gout, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    ref = reference(feeds["X"], w, r, b, h0, c0, direction)
    return feeds, [ref[names.index(n)] for n in names if n in outputs]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace")


def ours(passage, model, feeds, tmp, tag, nout):
    cmd = [passage, "run", model, "-o", os.path.join(tmp, tag + ".npy")]
    for name, arr in feeds.items():
        f = os.path.join(tmp, "%s_%s.npy" % (tag, name))
        np.save(f, arr)
        cmd += ["--input", "%s=%s" % (name, f)]
    rc, out = run(cmd)
    if rc:
        raise RuntimeError("passage run %s: %s" % (os.path.basename(model), out.strip()))
    if nout == 1:
        return [np.load(os.path.join(tmp, tag + ".npy"))]
    return [np.load(os.path.join(tmp, "%s_%d.npy" % (tag, k))) for k in range(nout)]


def ort(model, feeds, tmp, tag):
    spec = {}
    for name, arr in feeds.items():
        f = os.path.join(tmp, "%s_%s.bin" % (tag, name))
        arr.tofile(f)
        spec[name] = {"type": "float32", "dims": list(arr.shape), "file": f}
    js, od = os.path.join(tmp, tag + "_in.json"), os.path.join(tmp, tag + "_ort")
    os.mkdir(od)
    json.dump(spec, open(js, "w"))
    rc, out = run(["node", ORT_RUN, model, js, od])
    if rc:
        raise RuntimeError("onnxruntime %s: %s" % (os.path.basename(model), out.strip()))
    return [np.fromfile(o["file"], dtype=o["type"]).reshape(o["dims"]) for o in json.load(open(os.path.join(od, "outputs.json")))]


def compare(what, got, want, tol=1e-5):
    if len(got) != len(want):
        raise RuntimeError("%s: %d outputs, want %d" % (what, len(got), len(want)))
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            raise RuntimeError("%s: output %d has shape %s, want %s" % (what, k, g.shape, w.shape))
        rel = float(np.max(np.abs(g.astype(np.float64) - w))) / max(float(np.max(np.abs(w))), 1e-30)
        if rel > tol:
            raise RuntimeError("%s: output %d off by %.2e relative" % (what, k, rel))


def check_export(path, direction, has_b):
    ops = [n.op_type for n in onnx.load(path).graph.node]
    lstm = [n for n in onnx.load(path).graph.node if n.op_type == "LSTM"]
    # Besides the LSTM only the outputs' Identity nodes (the exporter's) remain.
    if len(lstm) != 1 or any(op not in ("LSTM", "Identity") for op in ops):
        raise RuntimeError("%s: nodes %s, want one LSTM" % (os.path.basename(path), ops))
    a = {x.name: helper.get_attribute_value(x) for x in lstm[0].attribute}
    if a.get("hidden_size") != HID or a.get("direction", b"forward").decode() != direction:
        raise RuntimeError("%s: LSTM attributes %s" % (os.path.basename(path), a))
    if lstm[0].name != "lstm1":
        raise RuntimeError("%s: the LSTM node is named %r, not after the original" % (os.path.basename(path), lstm[0].name))
    if (len(lstm[0].input) > 3 and lstm[0].input[3] != "") != has_b:
        raise RuntimeError("%s: LSTM inputs %s" % (os.path.basename(path), list(lstm[0].input)))


CASES = [
    # name, has B, initial states given, direction, outputs used
    ("states", True, "hc", "forward", ("Y", "Y_h", "Y_c")),
    ("no_states", True, "", "forward", ("Y", "Y_h", "Y_c")),
    ("no_bias", False, "hc", "forward", ("Y", "Y_h", "Y_c")),
    ("no_bias_no_states", False, "", "forward", ("Y",)),
    ("only_h", True, "h", "forward", ("Y_h", "Y_c")),
    ("reverse", True, "hc", "reverse", ("Y", "Y_c")),
    ("bidirectional", True, "hc", "bidirectional", ("Y", "Y_h", "Y_c")),
]


def check_bad_weights(passage, tmp):
    """W of the wrong input size: an error naming the node, not a crash."""
    w = numpy_helper.from_array(np.zeros((1, 4 * HID, INP + 3), np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 4 * HID, HID), np.float32), "R")
    node = helper.make_node("LSTM", ["X", "W", "R"], ["Y"], hidden_size=HID, name="bad")
    graph = helper.make_graph([node], "lstm", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [SEQ, BATCH, INP])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [SEQ, 1, BATCH, HID])], initializer=[w, r])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    path = os.path.join(tmp, "bad.onnx")
    onnx.save(model, path)
    rc, out = run([passage, "import", path, "-o", os.path.join(tmp, "bad.relay")])
    if rc != 1 or "node 'bad' (LSTM)" not in out or "input dimension" not in out:
        raise RuntimeError("bad W: status %d, %s" % (rc, out.strip()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    args = ap.parse_args()
    have_ort = os.path.isdir(ORT_DIR)
    if not have_ort:
        print("note: ONNX Runtime not fetched (tools/fetch-models.sh): exports checked with our interpreter only")
    failed = 0
    rng = np.random.default_rng(7)
    for name, has_b, init, direction, outputs in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                model = os.path.join(tmp, "m.onnx")
                feeds, ref = build(model, rng, has_b, init, direction, outputs)
                compare("passage run", ours(args.passage, model, feeds, tmp, "orig", len(ref)), ref)
                if have_ort:
                    compare("onnxruntime on the original", ort(model, feeds, tmp, "orig"), ref)
                for level in (0, 3):
                    out = os.path.join(tmp, "o%d.onnx" % level)
                    rc, msg = run([args.passage, "opt", model, "-O%d" % level, "-o", out])
                    if rc:
                        raise RuntimeError("passage opt -O%d: %s" % (level, msg.strip()))
                    onnx.checker.check_model(onnx.load(out), full_check=True)
                    check_export(out, direction, has_b)
                    compare("passage run -O%d export" % level, ours(args.passage, out, feeds, tmp, "o%d" % level, len(ref)), ref)
                    if have_ort:
                        compare("onnxruntime on the -O%d export" % level, ort(out, feeds, tmp, "o%d" % level), ref)
                print("ok   %s" % name)
            except (RuntimeError, onnx.checker.ValidationError) as e:
                print("FAIL %s: %s" % (name, e))
                failed += 1
    with tempfile.TemporaryDirectory() as tmp:
        try:
            check_bad_weights(args.passage, tmp)
            print("ok   bad_weights")
        except RuntimeError as e:
            print("FAIL bad_weights: %s" % e)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
