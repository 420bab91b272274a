# from tvm.script import tir as T
# corpus: a let inside a vectorized loop

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for j in T.vectorized(8):
        x: T.float32 = A[j] + T.float32(1.0)
        B[j] = x * x
