# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "int8"), B: T.Buffer((256,), "int8")):
    for i in T.parallel(256):
        B[i] = T.max(A[i], T.int8(0))
