# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle):
    m = T.int32()
    s = T.int32()
    A = T.match_buffer(a, (m, 4), strides=(s, 1), elem_offset=4, offset_factor=4)
    for i in range(m):
        A[i, 0] = T.float32(1.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
