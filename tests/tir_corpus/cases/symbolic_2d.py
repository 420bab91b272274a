# from tvm.script import tir as T
# corpus: a symbolic outer dim, a fixed inner one, index arithmetic on n

@T.prim_func
def main(n: T.int32, A: T.Buffer((n, 4), "int32"), B: T.Buffer((n, 4), "int32")):
    for i, j in T.grid(n, 4):
        B[n - 1 - i, j] = A[i, j] * n + j
