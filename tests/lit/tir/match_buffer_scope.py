# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle):
    A = T.match_buffer(a, (16,), "float16", scope="shared", align=16)
    A[0] = T.float16(0.5)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
