# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    with T.LetStmt(T.float32(10.0)) as v:
        A[0] = v
    A[1] = T.float32(0.0)
