# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    for i in range(4):
        A[i] = i
    for i in range(4):
        A[i + 4] = i
    with T.LetStmt(1) as x:
        A[0] = x
    x: T.int32 = 2
    A[1] = x
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
