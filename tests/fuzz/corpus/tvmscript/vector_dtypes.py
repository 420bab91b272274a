# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), x: T.float32x4):
    A[0:4] = x
    y: T.float32x4 = x * x
    A[4:8] = y
