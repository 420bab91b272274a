#!/usr/bin/python3
"""Prints the nodes of an exported ONNX model for FileCheck, one line each
("op name"), the main graph first, then each subgraph after a line
"graph NAME" (breadth first); fails (exit 1) unless onnx.checker accepts the
model and node names are unique across all its graphs.

With --original M.onnx --min-kept F: prints instead how many exported nodes
carry the name of a node of M (the fraction of all exported nodes) and fails
below F; exits 0 with a note when M is absent (the model cache is optional)."""
import argparse
import os
import sys

import onnx


def graphs(g):
    out, todo = [], [g]
    while todo:
        h = todo.pop(0)
        out.append(h)
        for n in h.node:
            todo += [a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
    return out


ap = argparse.ArgumentParser()
ap.add_argument("model")
ap.add_argument("--original")
ap.add_argument("--min-kept", type=float, default=0.0)
args = ap.parse_args()
if args.original and not os.path.exists(args.original):
    print("skipped: %s is not fetched" % args.original)
    sys.exit(0)
m = onnx.load(args.model)
onnx.checker.check_model(m, full_check=True)
gs = graphs(m.graph)
names = [n.name for h in gs for n in h.node]
dups = sorted({x for x in names if names.count(x) > 1})
if dups or "" in names:
    print("node names not unique (or empty): %s" % dups)
    sys.exit(1)
if args.original:
    orig = {n.name for h in graphs(onnx.load(args.original).graph) for n in h.node if n.name}
    kept = sum(1 for x in names if x in orig)
    frac = kept / max(1, len(names))
    print("%d of %d exported nodes keep an original name (%.2f)" % (kept, len(names), frac))
    sys.exit(0 if frac >= args.min_kept else 1)
for k, h in enumerate(gs):
    if k:
        print("graph", h.name)
    for n in h.node:
        print(n.op_type, n.name)
