# from tvm.script import tir as T
# corpus: a likely guard on a symbolic bound

@T.prim_func
def main(n: T.int32, A: T.Buffer((16,), "int32")):
    for i in range(16):
        if T.likely(i < n):
            A[i] = A[i] + 1
