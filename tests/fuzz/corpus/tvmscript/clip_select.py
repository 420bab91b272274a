# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        B[i] = T.Select(A[i] < T.float32(0.0), T.float32(0.0), T.Select(T.float32(6.0) < A[i], T.float32(6.0), A[i]))
