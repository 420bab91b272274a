# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "int32")):
    for i in range(16):
        for j in range(i + 1):
            A[i, j] = i - j
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
