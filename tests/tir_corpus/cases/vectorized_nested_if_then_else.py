# from tvm.script import tir as T
# corpus: if_then_else with a load in a vectorized loop (padding)

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((12,), "float32")):
    for j in T.vectorized(12):
        B[j] = T.if_then_else(2 <= j and j < 10, A[j - 2], T.float32(0.0))
