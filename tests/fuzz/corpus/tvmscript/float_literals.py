# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float16"), C: T.Buffer((4,), "bfloat16")):
    A[0] = T.float32(0.0)
    A[1] = T.float32(-1.5)
    A[2] = T.float32(3.4028235e+38)
    A[3] = T.float32("inf")
    B[0] = T.float16(1.0)
    C[0] = T.bfloat16(2.0)
