#!/usr/bin/python3
"""Per-op-type node counts (issue 6 node-count goal): our -O3 export of each
real model next to ONNX Runtime's 'extended' optimized graph (saved through
bench/onnx_ort_opt.js), so the gap is visible op by op. Contrib ops (ORT's
fused kernels) are listed with their domain. If branches are counted.
Usage: bench/onnx_op_histogram.py --passage BUILD/passage [--only NAME] [--keep DIR]"""
import argparse, collections, os, subprocess, sys, tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onnx_bench import CACHE, MODELS  # noqa: E402


def histogram(path):
    m = onnx.load(path)
    c, todo = collections.Counter(), [m.graph]
    while todo:
        g = todo.pop()
        for n in g.node:
            d = n.domain if n.domain not in ("", "ai.onnx") else ""
            c[(d + "." if d else "") + n.op_type] += 1
        todo += [a.g for n in g.node for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    ap.add_argument("--only", help="models whose label contains this text")
    ap.add_argument("--keep", help="write the exported and ORT graphs here")
    ap.add_argument("--level", default="3")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(CACHE, "node_modules", "onnxruntime-node")):
        print("models not fetched (run tools/fetch-models.sh): skipped")
        return 0
    for label, model, shapes in MODELS:
        if args.only and args.only.lower() not in label.lower():
            continue
        sh = sum((["--input-shape", s] for s in shapes), [])
        with tempfile.TemporaryDirectory() as tmp:
            out = args.keep or tmp
            os.makedirs(out, exist_ok=True)
            stem = label.replace(" ", "_")
            ours, ext = os.path.join(out, stem + ".O%s.onnx" % args.level), os.path.join(out, stem + ".ort.onnx")
            p = subprocess.run([args.passage, "opt", model, "-O" + args.level, "-o", ours] + sh,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode:
                print("%s: passage failed: %s" % (label, p.stderr.decode().strip()[:300]))
                continue
            q = subprocess.run(["node", os.path.join(HERE, "onnx_ort_opt.js"), model, ext, "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            a = histogram(ours)
            b = histogram(ext) if q.returncode == 0 else collections.Counter()
            print("== %s: ours %d, ORT extended %d%s" % (label, sum(a.values()), sum(b.values()),
                  "" if q.returncode == 0 else " (ORT failed)"))
            print("   %-28s %6s %6s %6s" % ("op", "ours", "ORT", "diff"))
            for op in sorted(set(a) | set(b), key=lambda o: (-(a[o] - b[o]), o)):
                print("   %-28s %6d %6d %+6d" % (op, a[op], b[op], a[op] - b[op]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
