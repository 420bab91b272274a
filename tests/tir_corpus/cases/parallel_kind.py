# from tvm.script import tir as T
# corpus: parallel outer loop

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in T.parallel(8):
        for j in range(8):
            B[i, j] = A[j, i]
