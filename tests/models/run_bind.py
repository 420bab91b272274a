#!/usr/bin/python3
"""`passage run MODEL.onnx --input NAME=FILE.npy` binds the model's dynamic
dims from the arrays (issue 13): for each real model of run_e2e.py, on the
same seeded inputs, a run with only --input arrays must succeed and write
outputs bit-identical to a run that also gives every --input-shape. Skips
(exit 0 with a note) when the cache is absent. Run with /usr/bin/python3."""
import argparse, os, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_e2e import CACHE, draw_inputs  # noqa: E402  (the same models, inputs and order)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode().strip()


def outputs(prefix):
    """The .npy files `passage run -o PREFIX.npy` wrote, in output order."""
    if os.path.exists(prefix + ".npy"):
        return [np.load(prefix + ".npy")]
    got, k = [], 0
    while os.path.exists("%s_%d.npy" % (prefix, k)):
        got.append(np.load("%s_%d.npy" % (prefix, k)))
        k += 1
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if not os.path.isdir(CACHE):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    failed = 0
    for model, inputs, shown, arrays in draw_inputs():
        if args.only not in shown or not os.path.exists(model):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            given, shapes = [], []
            for iname, arr in arrays.items():
                np.save(os.path.join(tmp, iname + ".npy"), arr)
                given += ["--input", "%s=%s" % (iname, os.path.join(tmp, iname + ".npy"))]
                shapes += ["--input-shape", "%s=%s" % (iname, ",".join(map(str, arr.shape)))]
            a, b = os.path.join(tmp, "arrays"), os.path.join(tmp, "shapes")
            rc, err = run([args.passage, "run", model, "-o", a + ".npy"] + given)
            if rc:
                print("FAIL %s: with --input arrays only: %s" % (shown, err))
                failed += 1
                continue
            rc, err = run([args.passage, "run", model, "-o", b + ".npy"] + given + shapes)
            if rc:
                print("FAIL %s: with --input-shape too: %s" % (shown, err))
                failed += 1
                continue
            got, want = outputs(a), outputs(b)
            same = len(got) == len(want) and len(got) > 0 and all(
                x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(got, want))
            print("%s %s: %d output(s) %s" % ("ok  " if same else "FAIL", shown, len(got),
                                               "bit-identical" if same else "differ"))
            failed += not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
