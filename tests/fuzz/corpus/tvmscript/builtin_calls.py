# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((4,), "int32"), n: T.int32):
    T.address_of(A[0])
    B[0] = T.reinterpret("int32", A[0])
    B[1] = T.shift_left(n, 2) + T.bitwise_and(n, 7)
    A[2] = T.Cast("float32", T.isnan(A[3]))
    T.likely(n < 4)
    T.ret(n)
    T.call_intrin("float32", "tir.ret", n)
