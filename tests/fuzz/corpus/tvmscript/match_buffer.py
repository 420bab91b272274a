# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 16))
    B = T.match_buffer(b, (n, 16), "int8")
    for i, j in T.grid(n, 16):
        B[i, j] = T.Cast("int8", A[i, j])
