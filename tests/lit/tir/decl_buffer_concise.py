# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B = T.decl_buffer((16,))
    for i in range(16):
        B[i] = A[i]
    A[0] = B[15]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
