# from tvm.script import tir as T
# corpus: a 4x5x3 matmul

@T.prim_func
def main(A: T.Buffer((4, 3), "float32"), B: T.Buffer((3, 5), "float32"), C: T.Buffer((4, 5), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(4, 5):
        C[i, j] = T.float32(0.0)
        for k in range(3):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]
