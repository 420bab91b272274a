#!/usr/bin/python3
"""Prints two .npy outputs side by side (compiled code next to the reference
interpreter, as `make run` shows them) and fails when they differ beyond the
project tolerance |a - ref| <= 1e-4 * max(|ref|, 1e-2).

usage: compare-npy.py NATIVE.npy REFERENCE.npy"""
import sys

import numpy as np


def main():
    native, ref = np.load(sys.argv[1]).ravel(), np.load(sys.argv[2]).ravel()
    if native.shape != ref.shape:
        print("compare-npy: %d values against %d" % (native.size, ref.size), file=sys.stderr)
        return 1
    print("%-5s %14s %14s" % ("i", "compiled", "interpreter"))
    for i in range(min(native.size, 10)):
        print("%-5d %14.8g %14.8g" % (i, native[i], ref[i]))
    err = np.abs(native.astype(np.float64) - ref.astype(np.float64))
    bound = 1e-4 * np.maximum(np.abs(ref.astype(np.float64)), 1e-2)
    print("max |compiled - interpreter| = %.3g over %d values" % (err.max(initial=0.0), ref.size))
    if (err > bound).any():
        print("compare-npy: outside the tolerance 1e-4 * max(|ref|, 1e-2)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
