# from tvm.script import tir as T
# corpus: int16 with a cast round trip through int32

@T.prim_func
def main(A: T.Buffer((8,), "int16"), B: T.Buffer((8,), "int16")):
    for i in range(8):
        B[i] = T.Cast("int16", T.Cast("int32", A[i]) * 300 + 7)
