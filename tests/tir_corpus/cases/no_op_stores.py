# from tvm.script import tir as T
# corpus: stores of a value to itself and dead stores (RemoveNoOp)

@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        A[i] = A[i]
        B[i] = 5
        B[i] = A[i] + 1
    T.evaluate(0)
    for i in range(0):
        A[i] = 1
