# from tvm.script import tir as T
# corpus: a while loop driven by a buffer cell

@T.prim_func
def main(A: T.Buffer((1,), "int32"), B: T.Buffer((10,), "int32")):
    A[0] = 0
    while A[0] < 10:
        B[A[0]] = A[0] * A[0]
        A[0] = A[0] + 1
