# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    for i in range(4):
        a: T.int32 = i * 4
        b: T.int32 = a + n
        A[a] = b
        A[a + 1] = b + 1
