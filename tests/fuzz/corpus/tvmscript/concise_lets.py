# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), n: T.int32):
    x: T.int32 = n * 2
    y: T.float32 = A[x]
    A[0] = y + T.float32(1.0)
