#!/usr/bin/python3
"""Runs names_model.py's names.onnx and its exports (argv[1:], the original
first) with `passage run` (from PATH) on one seeded input, the If's
condition true and false, and fails (exit 1) unless every export gives the
original's output exactly."""
import os
import subprocess
import sys
import tempfile

import numpy as np

models = sys.argv[1:]
with tempfile.TemporaryDirectory() as tmp:
    x = os.path.join(tmp, "x.npy")
    np.save(x, np.random.RandomState(1).randn(1, 3, 8, 8).astype(np.float32))
    for cond in (True, False):
        c = os.path.join(tmp, "c.npy")
        np.save(c, np.array(cond))
        outs = []
        for k, m in enumerate(models):
            o = os.path.join(tmp, "out%d.npy" % k)
            subprocess.run(["passage", "run", m, "--input", "x=" + x, "--input", "cond=" + c, "-o", o], check=True)
            outs.append(np.load(o))
        for m, y in zip(models[1:], outs[1:]):
            if y.shape != outs[0].shape or not np.array_equal(y, outs[0]):
                print("%s differs from %s (cond=%s)" % (m, models[0], cond))
                sys.exit(1)
print("same outputs")
