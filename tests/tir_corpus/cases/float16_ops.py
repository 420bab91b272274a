# from tvm.script import tir as T
# corpus: float16 arithmetic and casts to float32

@T.prim_func
def main(A: T.Buffer((8,), "float16"), B: T.Buffer((8,), "float16"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float16(0.5) + T.float16(1.0)
        C[i] = T.Cast("float32", B[i]) * T.float32(3.0)
