# from tvm.script import tir as T
# corpus: int8 inputs accumulated in int32 through casts

@T.prim_func
def main(A: T.Buffer((4, 8), "int8"), W: T.Buffer((8,), "int8"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = 0
        for k in range(8):
            B[i] = B[i] + T.Cast("int32", A[i, k]) * T.Cast("int32", W[k])
