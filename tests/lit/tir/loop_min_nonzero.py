# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "int32"), n: T.int32):
    for i in range(4, 28):
        A[i] = i
    for j in range(n, n + 4):
        A[j] = 0
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
