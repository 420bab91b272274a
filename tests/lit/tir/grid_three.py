# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float16")):
    for i, j, k in T.grid(128, 128, 128):
        A[i, j, k] = A[i, j, k] + T.float16(1.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
