# from tvm.script import tir as T
# corpus: a likely guard splitting a loop into body and tail (LoopPartition)

@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for io, ii in T.grid(3, 4):
        if T.likely(io * 4 + ii < 10):
            B[io * 4 + ii] = A[io * 4 + ii] * T.float32(2.0)
