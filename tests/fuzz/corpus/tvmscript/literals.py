# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int64"), B: T.Buffer((8,), "float64"), C: T.Buffer((8,), "uint8"), D: T.Buffer((8,), "int16")):
    A[0] = T.int64(-1)
    A[1] = T.int64(9223372036854775807)
    B[0] = T.float64(0.1)
    B[1] = T.float64(1e+300)
    B[2] = T.float64("nan")
    C[0] = T.uint8(255)
    D[0] = T.int16(1)
    T.evaluate(-2147483647)
    T.evaluate(T.int32(-2147483648))
    T.evaluate(T.bool(True))
