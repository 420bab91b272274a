# from tvm.script import tir as T
# corpus: a vectorized inner loop under a serial reduction

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32")):
    for j in T.vectorized(8):
        B[j] = T.float32(0.0)
    for k in range(4):
        for j in T.vectorized(8):
            B[j] = B[j] + A[k, j]
