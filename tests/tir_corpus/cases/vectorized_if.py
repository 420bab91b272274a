# from tvm.script import tir as T
# corpus: a vectorized loop holding an if: scalarized

@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(2):
        for j in T.vectorized(8):
            if A[i * 8 + j] > 0:
                B[i * 8 + j] = A[i * 8 + j]
            else:
                B[i * 8 + j] = 0 - A[i * 8 + j]
