# from tvm.script import tir as T
# corpus: a float let used twice under a loop

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        v: T.float32 = A[i] * A[i]
        B[i] = v + v * T.float32(0.5)
