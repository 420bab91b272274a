# from tvm.script import tir as T

@T.prim_func
def vadd(a: T.handle, B: T.Buffer((2, 3), "float32"), C: T.Buffer((2, 3), "float32")):
    A = T.match_buffer(a, (2, 3))
    for i, j in T.grid(2, 3):
        C[i, j] = A[i, j] + B[i, j]
