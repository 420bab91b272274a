# from tvm.script import tir as T
# corpus: a 2-d DeclBuffer over an allocation

@T.prim_func
def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 4), "float32")):
    d = T.allocate([24], "float32", "global")
    D = T.decl_buffer((6, 4), data=d)
    for i, j in T.grid(4, 6):
        D[j, i] = A[i, j]
    for j, i in T.grid(6, 4):
        B[j, i] = D[j, i] + D[5 - j, 3 - i]
