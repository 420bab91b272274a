# from tvm.script import tir as T

@T.prim_func
def main(n: T.int32, A: T.Buffer((n,), "float32")):
    for i in range(n):
        A[i] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
