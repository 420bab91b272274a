# from tvm.script import tir as T
# corpus: an if/elif/else chain on a parameter

@T.prim_func
def main(A: T.Buffer((8,), "int32"), n: T.int32):
    for i in range(8):
        if i < 2:
            A[i] = 1
        elif i < n:
            A[i] = 2
        elif i == 7:
            A[i] = 3
        else:
            A[i] = A[i] * 2
