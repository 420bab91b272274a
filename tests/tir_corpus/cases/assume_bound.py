# from tvm.script import tir as T
# corpus: T.assume on a parameter that an index depends on

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    T.assume(0 <= n and n < 16)
    for i in range(4):
        A[(n + i) % 16] = A[n] + i
