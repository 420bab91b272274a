# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1,), "int32")):
    while A[0] < 10:
        A[0] = A[0] + 1
