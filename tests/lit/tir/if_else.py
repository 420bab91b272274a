# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in range(16):
        if i < n:
            A[i] = T.float32(1.0)
        else:
            if i == n:
                A[i] = T.float32(0.5)
            else:
                A[i] = T.float32(0.0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
