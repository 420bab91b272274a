# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int32"), x: T.int32):
    for x_1 in range(4):
        x_2: T.int32 = x_1 + x
        A[x_1] = x_2
