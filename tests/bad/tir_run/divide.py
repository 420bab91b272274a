# from tvm.script import tir as T

@T.prim_func
def divide(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        B[i] = A[i] // (n - 3)
