# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.decl_buffer((16,), "float32",) as B:
        B[0] = A[1]
        C = T.decl_buffer((16,), "float32", data=B.data)
        C[1] = B[0]
    D = T.decl_buffer((4, 4,), "int32")
    D[0, 1,] = 2
