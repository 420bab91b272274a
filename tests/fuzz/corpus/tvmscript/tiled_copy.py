# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for io, jo in T.grid(8, 8):
        for ii in T.unroll(8):
            for ji in T.vectorized(8):
                B[io * 8 + ii, jo * 8 + ji] = A[jo * 8 + ji, io * 8 + ii]
