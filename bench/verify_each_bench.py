#!/usr/bin/python3
"""Verify-each's overhead (issue 19): `passage opt MODEL -O3` on the 8 real
models of onnx_bench.py, with and without --verify-each, runs interleaved,
best of N each. Prints one line per model and the total.

Usage: bench/verify_each_bench.py --passage BUILD/passage [--runs N]"""
import argparse, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_bench import MODELS  # noqa: E402


def wall(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    tot = [0.0, 0.0]
    print("%-16s %10s %12s %8s" % ("model", "-O3 s", "+verify s", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for label, model, shapes in MODELS:
            if not os.path.exists(model):
                print("%-16s missing" % label)
                continue
            sh = sum((["--input-shape", s] for s in shapes), [])
            base = [args.passage, "opt", model, "-O3", "-o", os.path.join(tmp, "o.relay")] + sh
            best = [float("inf"), float("inf")]
            for _ in range(args.runs):
                best[0] = min(best[0], wall(base + ["--config", "testing.verify_each=false"]))
                best[1] = min(best[1], wall(base + ["--verify-each"]))
            tot[0] += best[0]
            tot[1] += best[1]
            print("%-16s %10.3f %12.3f %7.2fx" % (label, best[0], best[1], best[1] / best[0]))
    print("%-16s %10.3f %12.3f %7.2fx" % ("total", tot[0], tot[1], tot[1] / tot[0] if tot[0] else 0))


if __name__ == "__main__":
    main()
