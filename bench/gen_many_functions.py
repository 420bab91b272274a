#!/usr/bin/python3
"""Writes a generated Relay module of N functions for the pass-cache
benchmark and tests (docs/pass-infra.md "Pass cache"): @f0 .. @f{N-1}, each
a chain of convolutions, batch norms and scalar arithmetic with constants to
fold, subexpressions to share and scales to fold, and @main calling them in
turn. --edit K changes one constant of @fK only, so the module differs from
the unedited one in exactly that function.

usage: gen_many_functions.py N [--edit K] [--ops M] [--channels C] [--distinct-shapes] [--fold-work N] > module.relay"""
import argparse
import base64
import struct


def const(values):
    return base64.b64encode(struct.pack("<%df" % len(values), *values)).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--edit", type=int, default=-1, help="change a constant of @fK")
    ap.add_argument("--ops", type=int, default=6, help="conv/batch-norm blocks per function")
    ap.add_argument("--channels", type=int, default=8, help="channels of the feature maps")
    ap.add_argument("--distinct-shapes", action="store_true",
                    help="@fK works on a (K+8)x(K+8) map, so lowering gives each its own PrimFuncs; "
                         "@main then takes one input per function and returns them all")
    ap.add_argument("--fold-work", type=int, default=0,
                    help="also give each function sum(nn.dense(A, B)) of two constant [N, 64] matrices, "
                         "which FoldConstant evaluates (N*N*64 multiply-adds) into one scalar")
    a = ap.parse_args()
    c = a.channels
    meta = []
    out = ['#[version = "0.0.5"]']
    shapes = ["(1, %d, %d, %d)" % (c, i + 8 if a.distinct_shapes else 8, i + 8 if a.distinct_shapes else 8)
              for i in range(a.n)]
    for i in range(a.n):
        shape = shapes[i]
        lines = ["def @f%d(%%x: Tensor[%s, float32]) {" % (i, shape)]
        prev, k = "%x", 0
        for j in range(a.ops):
            w = len(meta)
            meta.append(("[%d, %d, 3, 3]" % (c, c), [((i * 7 + j * 3 + q) % 11 - 5) / 16.0 for q in range(c * c * 9)]))
            bn = len(meta)
            scale = 1.0 + (i + j) / 64.0 + (0.5 if i == a.edit and j == 0 else 0.0)
            meta.append(("[%d]" % c, [scale + q / 32.0 for q in range(c)]))
            lines += [
                "  %%%d = nn.conv2d(%s, meta[relay.Constant][%d], padding=[1, 1, 1, 1], channels=%d, kernel_size=[3, 3]);"
                % (k, prev, w, c),
                "  %%%d = nn.batch_norm(%%%d, meta[relay.Constant][%d], meta[relay.Constant][%d], meta[relay.Constant][%d], meta[relay.Constant][%d]);"
                % (k + 1, k, bn, bn, bn, bn),
                "  %%%d = %%%d.0;" % (k + 2, k + 1),
                "  %%%d = multiply(%%%d, multiply(%d.5f, 2f));" % (k + 3, k + 2, j),
                "  %%%d = nn.relu(%%%d);" % (k + 4, k + 3),
                "  %%%d = nn.relu(%%%d);" % (k + 5, k + 3),
                "  %%%d = add(%%%d, %%%d);" % (k + 6, k + 4, k + 5),
            ]
            prev, k = "%%%d" % (k + 6), k + 7
        if a.fold_work:
            ca = len(meta)
            meta.append(("[%d, 64]" % a.fold_work, [((i + q) % 13 - 6) / 64.0 for q in range(a.fold_work * 64)]))
            meta.append(("[%d, 64]" % a.fold_work, [((i * 3 + q) % 7 - 3) / 64.0 for q in range(a.fold_work * 64)]))
            lines += ["  %%%d = sum(nn.dense(meta[relay.Constant][%d], meta[relay.Constant][%d]));" % (k, ca, ca + 1),
                      "  %%%d = add(%s, %%%d);" % (k + 1, prev, k)]
            prev, k = "%%%d" % (k + 1), k + 2
        lines += ["  %s" % prev, "}"]
        out += lines
    if a.distinct_shapes:
        params = ", ".join("%%x%d: Tensor[%s, float32]" % (i, shapes[i]) for i in range(a.n))
        out.append("def @main(%s) {" % params)
        for i in range(a.n):
            out.append("  %%%d = @f%d(%%x%d);" % (i, i, i))
        out += ["  (%s)" % ", ".join("%%%d" % i for i in range(a.n)), "}", "#[metadata]"]
    else:
        out.append("def @main(%%x: Tensor[%s, float32]) {" % shapes[0])
        prev = "%x"
        for i in range(a.n):
            out.append("  %%%d = @f%d(%s);" % (i, i, prev))
            prev = "%%%d" % i
        out += ["  %s" % prev, "}", "#[metadata]"]
    items = ['{"dtype": "float32", "shape": %s, "data": "%s"}' % (s, const(v)) for s, v in meta]
    out.append('{"relay.Constant": [%s]}' % ", ".join(items))
    print("\n".join(out))


if __name__ == "__main__":
    main()
