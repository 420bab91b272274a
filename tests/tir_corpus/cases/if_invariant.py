# from tvm.script import tir as T
# corpus: a loop-invariant condition inside a loop nest (HoistIfThenElse)

@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), n: T.int32):
    for i in range(4):
        for j in range(4):
            if n > 3:
                B[i, j] = A[i, j]
            else:
                B[i, j] = A[j, i]
