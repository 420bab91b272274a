# from tvm.script import tir as T

@T.prim_func
def main(n: T.int32, m: T.int64, x: T.float32, flag: T.bool):
    if flag:
        T.evaluate(n)
    T.evaluate(m)
    T.evaluate(x)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
