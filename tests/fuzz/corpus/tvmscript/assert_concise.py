# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    assert n <= 16, "n is too large"
    assert 0 <= n, "n is negative"
    for i in range(n):
        A[i] = T.float32(0.0)
