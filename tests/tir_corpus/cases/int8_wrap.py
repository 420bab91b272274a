# from tvm.script import tir as T
# corpus: int8 arithmetic that wraps around

@T.prim_func
def main(A: T.Buffer((16,), "int8"), B: T.Buffer((16,), "int8")):
    for i in range(16):
        B[i] = A[i] * T.int8(3) + T.int8(100)
