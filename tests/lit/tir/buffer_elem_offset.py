# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A_1 = T.Buffer((8,), data=A.data, elem_offset=8)
    A_1[0] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
