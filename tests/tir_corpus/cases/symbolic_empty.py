# from tvm.script import tir as T
# corpus: a symbolic extent that is zero at run time (n - 6 with n = 6)

@T.prim_func
def main(n: T.int32, A: T.Buffer((8,), "int32")):
    for i in range(n - 6):
        A[i] = 5
    for i in range(n - 4):
        A[i] = A[i] + 1
