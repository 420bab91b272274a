# from tvm.script import tir as T
# corpus: truncdiv/truncmod of negative operands

@T.prim_func
def main(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
    for i in range(12):
        B[i] = T.truncdiv(i - 6, 4) * 100 + T.truncmod(i - 6, 4) + T.truncdiv(A[i], 3) - T.truncmod(A[i], 6)
