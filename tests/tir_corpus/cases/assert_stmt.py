# from tvm.script import tir as T
# corpus: assertions that hold

@T.prim_func
def main(A: T.Buffer((8,), "int32"), n: T.int32):
    assert n == 6, "n is six"
    for i in range(8):
        assert i < 8, "i in range"
        A[i] = A[i] + n
