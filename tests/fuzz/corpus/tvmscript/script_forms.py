# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"), n: T.int32):
    for i in range(0, n):
        A[i] = T.float32(0)
    for j in T.serial(0, n, annotations={"k": 1},):
        A[j] = T.float32(1)
    for k in T.serial(2, n + 2):
        A[k] = T.float32(2)
    B[0] = T.ceildiv(n, 4)
    B[1] = T.ceildiv(10, 4)
    m = T.meta_var(n * 2)
    B[m] = m + 1
    A[1] = B[1]
    A[2] = 3
    B[2] = T.float32(2.5)
    A[3:7] = T.Broadcast(n, 4)
    B[3,] = T.max(n, 2,)
    B[4] = T.ceildiv(n, 2,)
