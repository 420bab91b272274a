# from tvm.script import tir as T
# corpus: a condition on the outer var inside the inner loop

@T.prim_func
def main(A: T.Buffer((6, 5), "int32"), B: T.Buffer((6, 5), "int32")):
    for i in range(6):
        for j in range(5):
            if i % 2 == 0:
                B[i, j] = A[i, j] + j
            if i < 3:
                B[i, j] = B[i, j] * 2
