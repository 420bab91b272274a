# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.func_attr({"a": 0.2, "b": -0.25, "c": 0.20000000298023224, "d": [0.1, -1.5e+300], "e": {"x": 3.0}})
    A[0] = 1
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
