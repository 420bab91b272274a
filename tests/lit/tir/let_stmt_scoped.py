# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    with T.LetStmt(T.float32(10.0)) as v:
        A[0] = v
    A[1] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
