# from tvm.script import tir as T
# corpus: bool buffers, and/or/not, casts to and from bool

@T.prim_func
def main(A: T.Buffer((8,), "bool"), B: T.Buffer((8,), "bool"), C: T.Buffer((8,), "int32")):
    for i in range(8):
        C[i] = T.Cast("int32", A[i] and not B[i]) + T.Cast("int32", A[i] or B[i]) * 2
        B[i] = T.Cast("bool", C[i]) and i % 2 == 0
