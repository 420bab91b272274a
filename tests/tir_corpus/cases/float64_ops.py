# from tvm.script import tir as T
# corpus: float64 arithmetic

@T.prim_func
def main(A: T.Buffer((8,), "float64"), B: T.Buffer((8,), "float64")):
    for i in range(8):
        B[i] = A[i] * T.float64(0.1) + A[7 - i] / T.float64(3.0)
