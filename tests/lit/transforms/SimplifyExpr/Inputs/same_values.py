#!/usr/bin/python3
"""Runs two Relay files with `passage run` (found on PATH) on the same
seeded random inputs (every float32 tensor parameter of @main) and fails
unless every output agrees within 1e-5 relative."""
import glob, os, re, subprocess, sys, tempfile

import numpy as np

a, b = sys.argv[1], sys.argv[2]
head = open(a).read().split("{")[0]
rng = np.random.default_rng(1)
with tempfile.TemporaryDirectory() as tmp:
    args = []
    for name, shape in re.findall(r"%(\w+): Tensor\[\(([\d, ]+)\), float32\]", head):
        arr = rng.uniform(-5, 5, size=[int(d) for d in shape.split(",")]).astype("float32")
        np.save(os.path.join(tmp, "in_%s.npy" % name), arr)
        args += ["--input", "%s=%s" % (name, os.path.join(tmp, "in_%s.npy" % name))]
    outs = []
    for tag, path in (("outa", a), ("outb", b)):
        subprocess.run(["passage", "run", path, "-o", os.path.join(tmp, tag + ".npy")] + args, check=True)
        outs.append(sorted(glob.glob(os.path.join(tmp, tag + "*.npy"))))
    assert len(outs[0]) == len(outs[1]) > 0, outs
    for x, y in zip(*outs):
        u, v = np.load(x), np.load(y)
        assert u.shape == v.shape, (x, u.shape, v.shape)
        rel = float(np.max(np.abs(u.astype(np.float64) - v))) / max(float(np.max(np.abs(u))), 1e-30)
        if rel > 1e-5:
            sys.exit("%s: %s differs by %g relative" % (os.path.basename(a), os.path.basename(x), rel))
