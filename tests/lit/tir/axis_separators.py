# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle):
    A = T.match_buffer(a, (4, 4), axis_separators=[1])
    A[0, 0] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
