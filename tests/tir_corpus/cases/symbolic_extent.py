# from tvm.script import tir as T
# corpus: a loop over a symbolic extent and a buffer of that shape

@T.prim_func
def main(n: T.int32, A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
    for i in range(n):
        B[i] = A[i] * T.float32(0.5) + T.Cast("float32", i)
