# from tvm.script import tir as T
# corpus: int64 loop vars, extents and indices

@T.prim_func
def main(A: T.Buffer((T.int64(4), T.int64(6)), "float32"), B: T.Buffer((T.int64(24),), "float32")):
    for i in range(T.int64(4)):
        for j in range(T.int64(6)):
            B[i * T.int64(6) + j] = A[i, j] + T.Cast("float32", i * T.int64(10) + j)
