# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "bool"), n: T.int32, m: T.int32):
    A[0] = n < m
    A[1] = n <= m and m != 3
    A[2] = n > m or n >= 4 and m == 2
    A[3] = not n == m
    A[4] = (n < m) == (m < n)
    A[5] = (n < 3 or m < 3) and n > 0
    A[6] = not (n < 3 and m < 3)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
