# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int8")):
    with T.decl_buffer((16,), "int8", scope="shared") as S:
        S[0] = A[0]
    A[1] = T.int8(0)
