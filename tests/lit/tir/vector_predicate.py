# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B.vstore([0:4], A.vload([0:4], predicate=T.Broadcast(T.bool(True), 4)), predicate=T.Broadcast(T.bool(False), 4))
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
