# from tvm.script import tir as T
# corpus: a vectorized loop of extent 4

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        for j in T.vectorized(4):
            B[i * 4 + j] = A[i * 4 + j] * T.float32(2.0) + T.Cast("float32", j)
