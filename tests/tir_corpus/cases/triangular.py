# from tvm.script import tir as T
# corpus: an inner extent that depends on the outer var

@T.prim_func
def main(A: T.Buffer((5, 5), "int32")):
    for i in range(5):
        for j in range(i):
            A[i, j] = A[j, i] + i * 5 + j
        for j in range(i, 5):
            A[i, j] = 0
