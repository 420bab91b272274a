# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((), "int32"), B: T.Buffer((4,), "int32")):
    A[()] = A[()] + B[0]
# NOTE: a 0-d buffer is indexed by the empty tuple, as TVM prints it.
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
