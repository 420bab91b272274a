# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def helper(A: T.Buffer((4,), "int32")):
        A[0] = 0

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in T.vectorized(4):
            A[i] = i

    @T.prim_func
    def reduce(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 4):
            B[i] = B[i] + A[i, k]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
