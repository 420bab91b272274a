# from tvm.script import tir as T

@T.prim_func
def reads_only(A: T.Buffer((4,), "float32")):
    T.evaluate(A[0])
