# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "int32"), n: T.int32):
    A[0:4] = T.Ramp(n, 2, 4)
    A[4:12] = T.Broadcast(n, 8)
    A[T.Ramp(n, n, 4)] = T.Broadcast(0, 4)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
