# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    B = T.allocate([128], "float32", "global")
    B_1 = T.Buffer((128,), data=B)
    for i in range(128):
        B_1[i] = A[i] * T.float32(2.0)
    for i in range(128):
        A[i] = B_1[i]
