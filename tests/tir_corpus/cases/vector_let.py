# from tvm.script import tir as T
# corpus: a vector-typed let in a loop

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        y: T.float32x4 = A[i * 4:i * 4 + 4] * A[i * 4:i * 4 + 4]
        B[i * 4:i * 4 + 4] = y + y
