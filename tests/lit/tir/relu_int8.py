# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "int8"), B: T.Buffer((256,), "int8")):
    for i in T.parallel(256):
        B[i] = T.max(A[i], T.int8(0))
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
