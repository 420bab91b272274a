# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x = T.decl_buffer(())
    x[()] = T.float32(2.0)
    for i in range(16):
        A[i] = x[()]
# NOTE: a rank-0 T.decl_buffer (one element, as in TVM) parses, prints back
# NOTE: as written and runs: every A[i] is 2.
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
# RUN: passage run %t.py | FileCheck %s
# CHECK: output 0: float32 (16) sum=32 first=[2, 2, 2, 2, 2, ...]
