# from tvm.script import tir as T
# corpus: int64 values beyond 32 bits

@T.prim_func
def main(A: T.Buffer((8,), "int64"), B: T.Buffer((8,), "int64")):
    for i in range(8):
        B[i] = A[i] * T.int64(4294967296) + T.Cast("int64", i) * T.int64(3000000000)
