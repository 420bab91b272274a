# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle):
    n = T.int32(is_size_var=True)
    A = T.match_buffer(a, (n,))
    for i in range(n):
        A[i] = T.float32(0.0)
