# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    t = T.allocate([n], "float32", "global", condition=n > 0, annotations={"disable_lower_builtin": T.bool(True)})
    t_1 = T.Buffer((n,), data=t)
    t_1[0] = A[0]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
