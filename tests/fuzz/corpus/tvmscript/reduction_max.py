# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        B[i] = T.float32("-inf")
        for k in range(32):
            B[i] = T.max(B[i], A[i, k])
