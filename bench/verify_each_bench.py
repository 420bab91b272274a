#!/usr/bin/python3
"""Verify-each's overhead (issue 19): `passage opt MODEL -O3` on the 8 real
models of onnx_bench.py, with and without --verify-each, runs interleaved,
best of N each: the time of the -O3 pipeline itself (the O3 row of
--time-passes=flat; the verifier runs inside each pass call) and the wall
time of the whole command (ONNX import and printing included). One line per
model and the total.

Usage: bench/verify_each_bench.py --passage BUILD/passage [--runs N]"""
import argparse, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_bench import MODELS  # noqa: E402


def wall(cmd):
    """(wall seconds, seconds of the O3 pipeline)"""
    t = time.perf_counter()
    r = subprocess.run(cmd + ["--time-passes=flat"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    w = time.perf_counter() - t
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    rows = [ln.split() for ln in r.stderr.splitlines()]
    o3 = [int(x[0]) for x in rows if len(x) == 4 and x[3] == "O3" and x[0].isdigit()]
    return w, (o3[0] if o3 else 0) / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    tot = [0.0, 0.0, 0.0, 0.0]
    print("%-16s %9s %11s %7s | %9s %11s %7s" % ("model", "O3 ms", "+verify ms", "ratio", "wall s", "+verify s",
                                                "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for label, model, shapes in MODELS:
            if not os.path.exists(model):
                print("%-16s missing" % label)
                continue
            sh = sum((["--input-shape", s] for s in shapes), [])
            base = [args.passage, "opt", model, "-O3", "-o", os.path.join(tmp, "o.relay")] + sh
            best = [float("inf")] * 4  # pipeline off, on; wall off, on
            for _ in range(args.runs):
                w0, p0 = wall(base + ["--config", "testing.verify_each=false"])
                w1, p1 = wall(base + ["--verify-each"])
                best = [min(best[0], p0), min(best[1], p1), min(best[2], w0), min(best[3], w1)]
            tot = [a + b for a, b in zip(tot, best)]
            row(label, best)
    row("total", tot)


def row(label, b):
    print("%-16s %9.1f %11.1f %6.1fx | %9.3f %11.3f %6.2fx" % (label, b[0] * 1e3, b[1] * 1e3, b[1] / max(b[0], 1e-9),
                                                             b[2], b[3], b[3] / max(b[2], 1e-9)))


if __name__ == "__main__":
    main()
