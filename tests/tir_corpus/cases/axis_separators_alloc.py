# from tvm.script import tir as T
# corpus: an allocated buffer with axis separators

@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    d = T.allocate([4, 4], "float32", "global")
    D = T.decl_buffer((4, 4), data=d, axis_separators=[1])
    for i, j in T.grid(4, 4):
        D[i, j] = A[j, i]
    for i, j in T.grid(4, 4):
        B[i, j] = D[i, j] - A[i, j]
