# from tvm.script import tir as T

@T.prim_func
def main(n: T.int32):
    with T.Assert(n > 0, "need n > 0"):
        T.evaluate(n)
    T.evaluate(0)
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
