# from tvm.script import tir as T
# corpus: Select evaluating both arms and nested selects

@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        B[i] = T.Select(A[i] > 0, T.Select(A[i] > 50, 2, 1), T.Select(A[i] == 0, 0, -1)) * A[7 - i]
