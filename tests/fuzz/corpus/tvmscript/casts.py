# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int8"), n: T.int32):
    A[0] = T.Cast("float32", n)
    B[0] = T.Cast("int8", A[0])
    A[1] = T.Cast("float32", T.Cast("int64", n) * T.int64(2))
