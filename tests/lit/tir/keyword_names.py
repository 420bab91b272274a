# from tvm.script import tir as T

@T.prim_func
def main(T_1: T.Buffer((8,), "int32"), range_1: T.int32):
    T_1[0] = range_1
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
