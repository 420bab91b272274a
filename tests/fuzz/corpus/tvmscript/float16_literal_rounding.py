# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2,), "float16"), B: T.Buffer((4,), "float16"), C: T.Buffer((4,), "bfloat16")):
    A[0] = T.float32(0.0)
    A[1] = T.float32(-1.6)
    A[2]!= T.float16(2.0)
