# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.allocate([4, 4], "float32", "local") as t:
        t_1 = T.Buffer((16,), data=t)
        t_1[0] = T.float32(0.0)
    A[0] = T.float32(1.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
