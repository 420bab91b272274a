# from tvm.script import tir as T
# corpus: many statements in a row with read-after-write chains

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    A[0] = A[0] + 1
    A[1] = A[0] * 2
    A[2] = A[1] - A[0]
    A[3] = A[2] + A[1] + A[0]
    A[0] = A[3] % 7
    A[1] = A[1] // 3
