# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int32"), n: T.int32):
    A[0] = T.Let(x * x + 1, where={x: n + 1})
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
