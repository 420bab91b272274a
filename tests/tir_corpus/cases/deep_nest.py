# from tvm.script import tir as T
# corpus: six nested loops of small extents

@T.prim_func
def main(A: T.Buffer((2, 2, 2, 2, 2, 2), "float32"), B: T.Buffer((64,), "float32")):
    for a, b, c, d, e, f in T.grid(2, 2, 2, 2, 2, 2):
        B[a * 32 + b * 16 + c * 8 + d * 4 + e * 2 + f] = A[f, e, d, c, b, a] + T.float32(1.0)
