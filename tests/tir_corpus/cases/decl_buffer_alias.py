# from tvm.script import tir as T
# corpus: two views over one allocation (a flat one shows the layout)

@T.prim_func
def main(A: T.Buffer((3, 4), "int32"), B: T.Buffer((12,), "int32")):
    d = T.allocate([12], "int32", "global")
    D = T.decl_buffer((3, 4), "int32", data=d)
    F = T.decl_buffer((12,), "int32", data=d)
    for i, j in T.grid(3, 4):
        D[i, j] = A[i, j] * 10 + i
    for t in range(12):
        B[t] = F[t]
