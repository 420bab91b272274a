# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B_data = T.allocate([16], "float32", "global")
    B = T.decl_buffer((4, 4), data=B_data)
    B[0, 0] = A[0]
