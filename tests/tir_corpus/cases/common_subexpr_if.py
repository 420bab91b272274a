# from tvm.script import tir as T
# corpus: the same subexpression in both branches and the condition

@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        if A[i] * 3 + i > 10:
            B[i] = A[i] * 3 + i
        else:
            B[i] = (A[i] * 3 + i) * 2
