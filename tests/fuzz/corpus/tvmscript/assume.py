# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    T.assume(0 <= n and n < 16)
    A[n] = 0
