# from tvm.script import tir as T
# corpus: float and int scalar params mixed in arithmetic

@T.prim_func
def main(A: T.Buffer((8,), "float32"), s: T.float32, k: T.int32):
    for i in range(8):
        A[i] = A[i] * s + T.Cast("float32", k * i)
