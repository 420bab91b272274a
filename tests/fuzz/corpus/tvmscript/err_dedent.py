# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in range(4):
        A[i] = A[i]
      A[0] = A[1]
