# from tvm.script import tir as T
# corpus: an integer product reduction over a split axis

@T.prim_func
def main(A: T.Buffer((12,), "int32"), B: T.Buffer((1,), "int32")):
    B[0] = 1
    for ko, ki in T.grid(3, 4):
        B[0] = B[0] * (A[ko * 4 + ki] % 3 + 1)
