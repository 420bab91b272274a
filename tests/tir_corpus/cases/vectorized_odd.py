# from tvm.script import tir as T
# corpus: vectorized loops of extent 3 and 1

@T.prim_func
def main(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
    for i in range(4):
        for j in T.vectorized(3):
            B[i * 3 + j] = A[i * 3 + j] + j
    for j in T.vectorized(1):
        B[j] = B[j] * 2
