# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, B: T.Buffer((4,), "float32"), c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,))
    C = T.match_buffer(c, (n * 2,))
    B[0] = A[0] + C[1]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
