# from tvm.script import tir as T

@T.prim_func(private=True)
def helper(A: T.Buffer((4,), "int32")):
    A[0] = 1
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
