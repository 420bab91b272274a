# from tvm.script import tir as T
# corpus: a split loop over n with a guarded tail

@T.prim_func
def main(n: T.int32, A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
    for io, ii in T.grid((n + 3) // 4, 4):
        if io * 4 + ii < n:
            B[io * 4 + ii] = A[io * 4 + ii] + T.float32(1.0)
