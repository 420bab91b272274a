# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    A[0] = n + 1 - 2 * n
    A[1] = n // 4 + n % 4
    A[2] = T.truncdiv(n, 4) + T.truncmod(n, 4)
    A[3] = T.min(n, 3) + T.max(n, 0)
    A[4] = n - (n + 1)
    A[5] = n * (n + 1) // (n - 1)
    A[6] = (n - 1) * 3 - n % (n + 2)
    A[7] = 0 - n
