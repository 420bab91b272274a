# from tvm.script import tir as T
# corpus: Select, casts and min/max in a vectorized loop

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32")):
    for j in T.vectorized(16):
        B[j] = T.Cast("int32", T.Select(A[j] < T.float32(0.0), T.max(A[j], T.float32(-8.0)), T.min(A[j], T.float32(8.0))))
