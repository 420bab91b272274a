# from tvm.script import tir as T
# corpus: extent-1 loops at every depth, and a min that is not 0

@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    for i in range(1):
        for j in range(4):
            for k in range(2, 3):
                B[j, k] = A[j, k + i] * T.float32(2.0)
    for i, j, k in T.grid(1, 1, 4):
        B[i + 3, k] = A[j, k] - T.float32(1.0)
