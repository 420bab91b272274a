# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((T.int64(16),), "float32")):
    for i in range(T.int64(16)):
        A[i] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
