#!/usr/bin/python3
"""Validate-each's cost (issue 20 item 1): `passage opt MODEL -O3` and
`-O3 --lower` on the 8 real models, at the shapes of
tests/models/run_validate.py (PP-OCRv4 det at 64x64, rec at 48x80 through --lower), with and without
--validate-each (one input set), runs interleaved, best of N each. Prints the
CPU time of the command (user + sys of the child: the machine is shared, so
wall time mostly measures the others' load) and its wall time.

Usage: bench/validate_each_bench.py --passage BUILD/passage [--runs N] [--only LABEL] [--no-lower]"""
import argparse, os, resource, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "models"))
from run_validate import MODELS, command  # noqa: E402


def measure(cmd):
    """(CPU seconds, wall seconds) of one run; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-lower", action="store_true")
    args = ap.parse_args()
    print("%-15s %-12s %9s %12s %8s | %9s %12s" % ("model", "pipeline", "CPU s", "+validate s", "ratio", "wall s",
                                                  "+validate s"))
    total = {}
    for label, model, shapes, arrays, small in MODELS:
        if args.only not in label:
            continue
        if not os.path.exists(model):
            print("%-15s missing" % label)
            continue
        for lower in (False,) if args.no_lower else (False, True):
            what = "-O3 --lower" if lower else "-O3"
            if lower and small:
                shapes = small  # the shapes of tests/models/run_validate.py
            best = [float("inf")] * 4  # CPU off, on; wall off, on
            with tempfile.TemporaryDirectory() as tmp:
                for _ in range(args.runs):
                    c0, w0 = measure(command(args.passage, model, shapes, arrays, tmp, lower, False))
                    c1, w1 = measure(command(args.passage, model, shapes, arrays, tmp, lower, True))
                    best = [min(best[0], c0), min(best[1], c1), min(best[2], w0), min(best[3], w1)]
            t = total.setdefault(what, [0.0] * 4)
            total[what] = [a + b for a, b in zip(t, best)]
            row(label, what, best)
            sys.stdout.flush()
    for what, t in total.items():
        row("total", what, t)


def row(label, what, b):
    print("%-15s %-12s %9.3f %12.3f %7.1fx | %9.3f %12.3f" % (label, what, b[0], b[1], b[1] / max(b[0], 1e-9), b[2],
                                                              b[3]))


if __name__ == "__main__":
    main()
