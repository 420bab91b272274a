# from tvm.script import tir as T
# corpus: constant-bound conditions on the loop var

@T.prim_func
def main(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
    for i in range(12):
        if i < 4:
            B[i] = A[i]
        else:
            B[i] = A[i] * 2
    for i in range(12):
        B[i] = B[i] + T.if_then_else(i >= 9, 100, 0)
