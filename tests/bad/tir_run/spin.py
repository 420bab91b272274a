# from tvm.script import tir as T

@T.prim_func
def spin(A: T.Buffer((1,), "int32")):
    for i, j in T.grid(100000, 100000):
        A[0] = A[0] + 1
