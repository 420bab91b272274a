# from tvm.script import tir as T
# corpus: T.assume on buffer contents inside a loop

@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        A[i] = i * 2
    for i in range(8):
        T.assume(A[i] == i * 2)
        B[i] = A[i] // 2 + B[i]
