# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), B: T.Buffer((64, 16), "float32"), C: T.Buffer((32, 16), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(32, 16):
        C[i, j] = T.float32(0.0)
        for k in range(64):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
