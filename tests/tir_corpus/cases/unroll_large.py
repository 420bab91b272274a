# from tvm.script import tir as T
# corpus: an unroll loop over a symbolic-free large extent and a tiny one

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.unroll(64):
        A[i] = A[i] * T.float32(1.5)
    for i in T.unroll(1):
        A[i] = T.float32(0.0)
