# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), x: T.float32x4):
    A[0:4] = x
    y: T.float32x4 = x * x
    A[4:8] = y
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
