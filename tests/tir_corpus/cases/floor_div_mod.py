# from tvm.script import tir as T
# corpus: floordiv/floormod of negative operands

@T.prim_func
def main(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
    for i in range(12):
        B[i] = T.floordiv(i - 6, 4) * 100 + T.floormod(i - 6, 4) + T.floordiv(A[i], 7) + T.floormod(A[i], -5)
