# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), n: T.int32):
    A[0] = T.Select(n > 0, A[1], T.float32(0.0))
    A[1] = T.if_then_else(n < 8, A[n], T.float32(0.0))
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
