# from tvm.script import tir as T
# corpus: int64 index arithmetic that fits in 32 bits (NarrowDataType)

@T.prim_func
def main(A: T.Buffer((T.int64(8), T.int64(8)), "int32"), B: T.Buffer((T.int64(64),), "int32")):
    for i, j in T.grid(T.int64(8), T.int64(8)):
        B[i * T.int64(8) + j] = A[j, i] + T.Cast("int32", T.floordiv(i * T.int64(8) + j, T.int64(3)))
